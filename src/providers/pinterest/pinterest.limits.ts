import type { ChannelLimits, VideoLimits } from '../social-provider.interface';

/** Video types Pinterest's media upload takes (MP4 and MOV; M4V is MP4). */
export const PINTEREST_VIDEO_TYPES: readonly string[] = ['video/mp4', 'video/quicktime'];

/**
 * Pinterest's documented video pin limits: up to 2 GB, 4 seconds to 15 minutes, width over height
 * between 1:2 (tall) and 1.91:1 (wide).
 */
export const PINTEREST_VIDEO_LIMITS: VideoLimits = Object.freeze({
  maxBytes: 2 * 1024 ** 3,
  minDurationSeconds: 4,
  maxDurationSeconds: 15 * 60,
  mimeTypes: [...PINTEREST_VIDEO_TYPES],
  maxPerPost: 1,
  minAspectRatio: 0.5,
  maxAspectRatio: 1.91,
  mixWithImages: false,
});

/**
 * A Pinterest board: a pin is one image or one video with a description of up to 800 characters.
 * Images go as base64 (`image_base64`), which takes JPEG and PNG; Pinterest documents 20 MB as the
 * largest image. Videos go through Pinterest's media upload (register, upload, processing status),
 * within `video` (docs/adr/0045).
 */
export const PINTEREST_LIMITS: ChannelLimits = Object.freeze({
  maxCharacters: 800,
  maxMedia: 1,
  maxImageBytes: 20 * 1024 * 1024,
  supportedMimeTypes: ['image/jpeg', 'image/png', ...PINTEREST_VIDEO_TYPES],
  // A pin cannot answer a pin: no threads.
  threads: false,
  // No first comment through this service (yet): refused at validation.
  firstComment: false,
  video: PINTEREST_VIDEO_LIMITS,
});

/** Longest alt text of a pin (`alt_text`). */
export const PINTEREST_MAX_ALT_TEXT = 500;
/** Longest pin title (`title`). */
export const PINTEREST_MAX_TITLE = 100;
/** Longest destination link (`link`). */
export const PINTEREST_MAX_LINK = 2048;
/** Boards listed per authorization for the caller to choose from (the rest are left out). */
export const PINTEREST_MAX_BOARDS = 100;
/** Pinterest's pin analytics reach back this many days. */
export const PINTEREST_ANALYTICS_DAYS = 90;
