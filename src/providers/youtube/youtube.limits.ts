import type { ChannelLimits } from '../social-provider.interface';

/** Video types YouTube takes for upload (among those the service stores). */
export const YOUTUBE_VIDEO_TYPES: readonly string[] = ['video/mp4', 'video/quicktime', 'video/webm'];
/** Image types of a custom thumbnail. */
export const YOUTUBE_THUMBNAIL_TYPES: readonly string[] = ['image/jpeg', 'image/png'];
/** Largest custom thumbnail YouTube accepts (thumbnails.set: 2 MB). */
export const YOUTUBE_MAX_THUMBNAIL_BYTES = 2 * 1024 * 1024;
/** Largest video file YouTube accepts (videos.insert: 256 GB). */
export const YOUTUBE_MAX_VIDEO_BYTES = 256 * 1024 ** 3;
/** Title: at most 100 characters, no angle brackets. */
export const YOUTUBE_MAX_TITLE = 100;
/** Description: at most 5,000 bytes (UTF-8), no angle brackets. */
export const YOUTUBE_MAX_DESCRIPTION_BYTES = 5000;
/** Tags: at most 500 characters in all (a tag with a space counts its quotes). */
export const YOUTUBE_MAX_TAGS_CHARACTERS = 500;
/** Shorts: vertical or square videos of at most three minutes. */
export const YOUTUBE_SHORTS_MAX_SECONDS = 180;

/**
 * A YouTube channel: one video per post (the description is the post's text), with an optional image
 * as its custom thumbnail. `maxImageBytes` is the video ceiling; thumbnails are checked against
 * YOUTUBE_MAX_THUMBNAIL_BYTES.
 */
export const YOUTUBE_LIMITS: ChannelLimits = Object.freeze({
  maxCharacters: YOUTUBE_MAX_DESCRIPTION_BYTES,
  maxMedia: 2,
  maxImageBytes: YOUTUBE_MAX_VIDEO_BYTES,
  supportedMimeTypes: [...YOUTUBE_VIDEO_TYPES, ...YOUTUBE_THUMBNAIL_TYPES],
  // Comments are not posts: no threads.
  threads: false,
  // A top-level comment of the channel on its own video (commentThreads.insert), once it is processed.
  firstComment: true,
  // 12 hours for verified accounts (15 minutes until the account is verified on youtube.com).
  video: {
    maxBytes: YOUTUBE_MAX_VIDEO_BYTES,
    minDurationSeconds: 1,
    maxDurationSeconds: 12 * 3600,
    mimeTypes: [...YOUTUBE_VIDEO_TYPES],
    maxPerPost: 1,
  },
});
