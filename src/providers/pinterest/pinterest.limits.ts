import type { ChannelLimits } from '../social-provider.interface';

/**
 * A Pinterest board: a pin is one image with a description of up to 800 characters. Images go as
 * base64 (`image_base64`), which takes JPEG and PNG; Pinterest documents 20 MB as the largest image.
 * Video pins (media upload, then a pin with `video_id`) are in the adapter, but no video type is
 * listed until channel limits describe video (docs/adr/0038).
 */
export const PINTEREST_LIMITS: ChannelLimits = Object.freeze({
  maxCharacters: 800,
  maxMedia: 1,
  maxImageBytes: 20 * 1024 * 1024,
  supportedMimeTypes: ['image/jpeg', 'image/png'],
  // A pin cannot answer a pin: no threads.
  threads: false,
  // No first comment through this service (yet): refused at validation.
  firstComment: false,
});

/** Longest alt text of a pin (`alt_text`). */
export const PINTEREST_MAX_ALT_TEXT = 500;

/** Boards listed per authorization for the caller to choose from (the rest are left out). */
export const PINTEREST_MAX_BOARDS = 100;

/** Pinterest's pin analytics reach back this many days. */
export const PINTEREST_ANALYTICS_DAYS = 90;
