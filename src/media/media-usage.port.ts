/**
 * Whether a scheduled or publishing post uses a media item: DELETE /media answers 409 then. Media
 * declares the port; the posts module, which owns the posts table, implements it (PostMediaUsageStore),
 * and the composition root (app.module.ts) binds the one to the other, so media imports nothing of
 * posts. MediaService requires it, so a missing binding fails at start-up.
 */
export interface MediaUsage {
  isInUse(workspaceId: string, mediaId: string): Promise<boolean>;
}

export const MEDIA_USAGE = Symbol('MEDIA_USAGE');
