import type { ChannelLimits } from '../social-provider.interface';

/** Video types TikTok's Content Posting API takes. */
export const TIKTOK_VIDEO_TYPES: readonly string[] = ['video/mp4', 'video/quicktime', 'video/webm'];
/** Photo types TikTok's photo posts take (no PNG). */
export const TIKTOK_PHOTO_TYPES: readonly string[] = ['image/jpeg', 'image/webp'];
/** Photos of one photo post (a carousel). */
export const TIKTOK_MAX_PHOTOS = 35;
/** Largest photo TikTok pulls (20 MB). */
export const TIKTOK_MAX_PHOTO_BYTES = 20 * 1024 * 1024;
/** Largest video TikTok takes (4 GB). */
export const TIKTOK_MAX_VIDEO_BYTES = 4 * 1024 ** 3;
/** A post's caption (`post_info.title`): at most 2,200 UTF-16 code units. */
export const TIKTOK_MAX_CAPTION = 2200;
/** FILE_UPLOAD chunks: at least 5 MB (unless the whole video is smaller), at most 64 MB, 1 to 1000 of them. */
export const TIKTOK_MIN_CHUNK = 5 * 1024 * 1024;
export const TIKTOK_MAX_CHUNK = 64 * 1024 * 1024;
export const TIKTOK_MAX_CHUNKS = 1000;

/**
 * A TikTok creator: one video per post, its caption the post's text, or a photo post of 1 to 35 JPEG
 * or WebP photos (the text its description; TikTok takes 4,000 characters there, the channel's
 * limit stays the caption's 2,200 for both).
 */
export const TIKTOK_LIMITS: ChannelLimits = Object.freeze({
  maxCharacters: TIKTOK_MAX_CAPTION,
  maxMedia: TIKTOK_MAX_PHOTOS,
  maxImageBytes: TIKTOK_MAX_PHOTO_BYTES,
  supportedMimeTypes: [...TIKTOK_VIDEO_TYPES, ...TIKTOK_PHOTO_TYPES],
  threads: false,
  // No first comment through this service (yet): refused at validation.
  firstComment: false,
  // Direct Post: up to 10 min (a creator's own maximum, from creator_info, may be lower), 23-60 fps,
  // at most 4096 pixels a side. TikTok checks the rest after the upload (picture_size_check_failed).
  video: {
    maxBytes: TIKTOK_MAX_VIDEO_BYTES,
    minDurationSeconds: 1,
    maxDurationSeconds: 600,
    mimeTypes: [...TIKTOK_VIDEO_TYPES],
    maxPerPost: 1,
    minFrameRate: 23,
    maxFrameRate: 60,
    maxLongSide: 4096,
    mixWithImages: false,
  },
});

/**
 * FILE_UPLOAD chunking by TikTok's rules: below 5 MB one chunk of the whole video; else chunks of
 * `preferred` bytes (clamped to 5..64 MB), `floor(size / chunk)` of them, the last one taking the
 * trailing bytes (so it may exceed the chunk size, up to 128 MB).
 */
export function tiktokChunking(size: number, preferred: number): { chunkSize: number; totalChunkCount: number } {
  if (size < TIKTOK_MIN_CHUNK) return { chunkSize: size, totalChunkCount: 1 };
  let chunkSize = Math.min(Math.max(preferred, TIKTOK_MIN_CHUNK), TIKTOK_MAX_CHUNK, size);
  if (Math.floor(size / chunkSize) > TIKTOK_MAX_CHUNKS) chunkSize = Math.ceil(size / TIKTOK_MAX_CHUNKS);
  return { chunkSize, totalChunkCount: Math.max(1, Math.floor(size / chunkSize)) };
}

/** The byte range of chunk `index` (0-based), the last one running to the end. */
export function tiktokChunkRange(
  index: number,
  size: number,
  chunking: { chunkSize: number; totalChunkCount: number },
): { first: number; last: number } {
  const first = index * chunking.chunkSize;
  const last = index === chunking.totalChunkCount - 1 ? size - 1 : first + chunking.chunkSize - 1;
  return { first, last };
}
