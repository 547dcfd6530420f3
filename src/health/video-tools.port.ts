/**
 * What `GET /api/health` asks of video processing: whether ffprobe and ffmpeg answer (checked once at
 * start-up and remembered, so asking is cheap). Health declares it; the composition root
 * (app.module.ts) binds media's VideoToolkit to it, so health imports no feature.
 */
export interface VideoToolsCheck {
  checkTools(): Promise<{ available: boolean; problem: string | null }>;
}

export const VIDEO_TOOLS = Symbol('VIDEO_TOOLS');
