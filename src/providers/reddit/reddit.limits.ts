import type { ChannelLimits, VideoLimits } from '../social-provider.interface';

/** Video types Reddit's media upload takes for a video post (MP4 and MOV). */
export const REDDIT_VIDEO_TYPES: readonly string[] = ['video/mp4', 'video/quicktime'];

/** Image types Reddit takes for image and gallery posts. */
export const REDDIT_IMAGE_TYPES: readonly string[] = ['image/jpeg', 'image/png', 'image/gif'];

/**
 * A Reddit video post: one video of up to 1 GB and 15 minutes (Reddit Help, "Uploading videos to
 * Reddit"), never beside images (docs/networks.md gives the sources and dates).
 */
export const REDDIT_VIDEO_LIMITS: VideoLimits = Object.freeze({
  maxBytes: 1024 ** 3,
  minDurationSeconds: 1,
  maxDurationSeconds: 15 * 60,
  mimeTypes: [...REDDIT_VIDEO_TYPES],
  maxPerPost: 1,
  mixWithImages: false,
});

/**
 * A Reddit account: a submission's body takes 40,000 characters (a comment 10,000, checked when a
 * reply is sent), an image post one image, a gallery up to 20 (images of up to 20 MB), a video post
 * one video. Thread parts and the first comment are comments on the submission (docs/adr/0054).
 */
export const REDDIT_LIMITS: ChannelLimits = Object.freeze({
  maxCharacters: 40_000,
  maxMedia: 20,
  maxImageBytes: 20 * 1024 * 1024,
  supportedMimeTypes: [...REDDIT_IMAGE_TYPES, ...REDDIT_VIDEO_TYPES],
  threads: true,
  firstComment: true,
  video: REDDIT_VIDEO_LIMITS,
});

/** Longest title Reddit takes (`title`, 300 characters). */
export const REDDIT_MAX_TITLE = 300;
/** Longest comment body Reddit takes (10,000 characters). */
export const REDDIT_MAX_COMMENT = 10_000;
/** Longest flair text (`flair_text`, 64 characters). */
export const REDDIT_MAX_FLAIR_TEXT = 64;
