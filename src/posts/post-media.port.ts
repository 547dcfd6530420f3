import { Readable } from 'node:stream';

/** What posts need from the media module (kept as a port so the arrow points one way). */
export interface PostMediaItem {
  id: string;
  status: string;
  filename: string;
  mimeType: string;
  size: number;
  width: number | null;
  height: number | null;
}

export interface PostMediaPort {
  findMany(workspaceId: string, ids: string[]): Promise<PostMediaItem[]>;
  open(mediaId: string): Readable;
}

export const POST_MEDIA = Symbol('POST_MEDIA');
