import type { ChannelLimits } from '../social-provider.interface';

/**
 * A Threads profile: 500 characters of text (emojis count their UTF-8 bytes), one image or a carousel
 * of 2 to 20; JPEG or PNG of up to 8 MB. Threads downloads each image from our signed public URL.
 */
export const THREADS_LIMITS: ChannelLimits = Object.freeze({
  maxCharacters: 500,
  maxMedia: 20,
  maxImageBytes: 8 * 1024 * 1024,
  supportedMimeTypes: ['image/jpeg', 'image/png'],
  // A reply is a container with `reply_to_id`.
  threads: true,
  firstComment: true,
});

/** Posts a profile may publish through the API in 24 hours, when the network does not say (threads_publishing_limit). */
export const THREADS_DEFAULT_DAILY_POSTS = 250;

/** Pause before retrying once the 24-hour publishing quota is used up (Threads gives no reset time). */
export const THREADS_QUOTA_RETRY_SECONDS = 3600;
