import type { ChannelLimits } from '../social-provider.interface';

/** A text message: 1-4096 characters after entity parsing (Telegram counts UTF-16 code units). */
export const TELEGRAM_MAX_TEXT = 4096;
/** A media caption: 0-1024 characters. */
export const TELEGRAM_MAX_CAPTION = 1024;
/** sendPhoto: at most 10 MB. */
export const TELEGRAM_MAX_PHOTO_BYTES = 10 * 1024 * 1024;
/** sendPhoto: the photo's width and height must not exceed 10000 in total. */
export const TELEGRAM_MAX_PHOTO_SIDES = 10_000;
/** sendPhoto: width and height ratio must be at most 20. */
export const TELEGRAM_MAX_PHOTO_RATIO = 20;
/** Files bots upload (sendVideo): at most 50 MB. */
export const TELEGRAM_MAX_VIDEO_BYTES = 50 * 1024 * 1024;
/** sendMediaGroup: 2-10 photos and videos. */
export const TELEGRAM_MAX_MEDIA = 10;

/**
 * Telegram through the Bot API. `maxImageBytes` is the photo limit; videos (MPEG-4, the format
 * Telegram clients play inline) may be up to 50 MB, which validation checks per item
 * (`limits.video`).
 */
export const TELEGRAM_LIMITS: ChannelLimits = Object.freeze({
  maxCharacters: TELEGRAM_MAX_TEXT,
  maxMedia: TELEGRAM_MAX_MEDIA,
  maxImageBytes: TELEGRAM_MAX_PHOTO_BYTES,
  supportedMimeTypes: ['image/jpeg', 'image/png', 'image/webp', 'video/mp4'],
  // A thread part is a message replying to the previous one (reply_parameters).
  threads: true,
  // No first comment through this service (yet): refused at validation.
  firstComment: false,
  // Bots send MPEG-4 up to 50 MB; the Bot API sets no duration limit (a day stands for none).
  video: Object.freeze({
    maxBytes: TELEGRAM_MAX_VIDEO_BYTES,
    minDurationSeconds: 0,
    maxDurationSeconds: 24 * 60 * 60,
    mimeTypes: ['video/mp4'],
    maxPerPost: TELEGRAM_MAX_MEDIA,
  }),
});
