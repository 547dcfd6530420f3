import type { ChannelLimits, VideoLimits } from '../social-provider.interface';
import { VIDEO_MIME_TYPES } from '../video-limits';

const SANDBOX_IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'];
export const SANDBOX_DEFAULT_VIDEO_SECONDS = 600;
export const SANDBOX_MAX_VIDEO_SECONDS = 24 * 60 * 60;
export const SANDBOX_DEFAULT_PROCESSING_SECONDS = 2;

/** The sandbox's video limits: any of the service's video types, one per post, up to `maxVideoSeconds`. */
export function sandboxVideoLimits(maxVideoSeconds: number): VideoLimits | null {
  if (maxVideoSeconds === 0) return null;
  return {
    maxBytes: 4 * 1024 * 1024 * 1024,
    minDurationSeconds: 0,
    maxDurationSeconds: maxVideoSeconds,
    mimeTypes: [...VIDEO_MIME_TYPES],
    maxPerPost: 1,
  };
}

/** The sandbox's limits when the credentials do not set them: images, and videos of up to 10 minutes. */
export const SANDBOX_DEFAULT_LIMITS: ChannelLimits = Object.freeze({
  maxCharacters: 500,
  maxMedia: 4,
  maxImageBytes: 16 * 1024 * 1024,
  supportedMimeTypes: [...SANDBOX_IMAGE_TYPES, ...VIDEO_MIME_TYPES],
  threads: true,
  video: sandboxVideoLimits(SANDBOX_DEFAULT_VIDEO_SECONDS),
  firstComment: true,
});

export const SANDBOX_MAX_CHARACTERS = 100_000;
export const SANDBOX_MAX_MEDIA = 20;

/** The channel's limits: the credentials' own `maxCharacters` / `maxMedia` / `threads` / `maxVideoSeconds` / `firstComment`, else the defaults. */
export function sandboxLimits(
  maxCharacters?: number,
  maxMedia?: number,
  threads?: boolean,
  maxVideoSeconds?: number,
  firstComment?: boolean,
): ChannelLimits {
  const video = sandboxVideoLimits(maxVideoSeconds ?? SANDBOX_DEFAULT_VIDEO_SECONDS);
  return {
    ...SANDBOX_DEFAULT_LIMITS,
    supportedMimeTypes: [...SANDBOX_IMAGE_TYPES, ...(video ? video.mimeTypes : [])],
    maxCharacters: maxCharacters ?? SANDBOX_DEFAULT_LIMITS.maxCharacters,
    maxMedia: maxMedia ?? SANDBOX_DEFAULT_LIMITS.maxMedia,
    threads: threads ?? SANDBOX_DEFAULT_LIMITS.threads,
    video,
    firstComment: firstComment ?? SANDBOX_DEFAULT_LIMITS.firstComment,
  };
}
