import type { ChannelLimits } from '../social-provider.interface';

/**
 * An Instagram professional account (Instagram API with Instagram Login): a caption of 2,200
 * characters, one image or a carousel of 2 to 10, up to 8 MB each. Instagram takes JPEG only: a PNG
 * is converted to JPEG when it is published, and Instagram downloads it from our signed public URL.
 * Feed images must have an aspect ratio between 4:5 and 1.91:1.
 */
export const INSTAGRAM_LIMITS: ChannelLimits = Object.freeze({
  maxCharacters: 2200,
  maxMedia: 10,
  maxImageBytes: 8 * 1024 * 1024,
  supportedMimeTypes: ['image/jpeg', 'image/png'],
  // Replies are comments, not posts: no threads.
  threads: false,
  firstComment: true,
});

/** Hashtags and @mentions Instagram allows in one caption. */
export const INSTAGRAM_MAX_HASHTAGS = 30;
export const INSTAGRAM_MAX_MENTIONS = 20;

/** Aspect ratios (width / height) of feed images Instagram accepts. */
export const INSTAGRAM_MIN_ASPECT = 4 / 5;
export const INSTAGRAM_MAX_ASPECT = 1.91;

/** Posts an account may publish through the API in 24 hours, when the network does not say (content_publishing_limit). */
export const INSTAGRAM_DEFAULT_DAILY_POSTS = 100;

/** Pause before retrying once the 24-hour publishing quota is used up (Instagram gives no reset time). */
export const INSTAGRAM_QUOTA_RETRY_SECONDS = 3600;
