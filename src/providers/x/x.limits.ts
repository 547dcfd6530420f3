import type { ChannelLimits } from '../social-provider.interface';

/** A standard (non-Premium) X account: 280 weighted characters, 4 images of up to 5 MB. */
export const X_LIMITS: ChannelLimits = Object.freeze({
  maxCharacters: 280,
  maxMedia: 4,
  maxImageBytes: 5 * 1024 * 1024,
  supportedMimeTypes: ['image/jpeg', 'image/png', 'image/gif', 'image/webp'],
  // A reply is a post with `reply.in_reply_to_tweet_id`.
  threads: true,
  firstComment: true,
});

/** Longest alt text X takes for an image (`POST /2/media/metadata`), in characters. */
export const X_MAX_ALT_TEXT = 1000;

/** Bytes sent per APPEND of the chunked media upload. */
export const X_UPLOAD_CHUNK_BYTES = 1024 * 1024;
