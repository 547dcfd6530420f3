import type { ChannelLimits } from '../social-provider.interface';

/** Message content: 2,000 characters. */
export const DISCORD_MAX_CONTENT = 2000;
/** Attachments per message. */
export const DISCORD_MAX_ATTACHMENTS = 10;
/**
 * Upload limit of each file on a server without boosts: 10 MiB per file (Discord's "Uploading Files"
 * reference; boosted servers take 50 or 100 MiB, which a webhook cannot see).
 */
export const DISCORD_MAX_UPLOAD_BYTES = 10 * 1024 * 1024;
/**
 * The API version every call names (`/api/v10/...`): a URL without one goes to Discord's default,
 * v6, deprecated. Discord's API reference lists v10 as available (recorded OpenAPI: info.version 10).
 */
export const DISCORD_API_VERSION = 'v10';
/** An attachment's description (its alt text). */
export const DISCORD_MAX_DESCRIPTION = 1024;
/** A forum post's title (`thread_name`). */
export const DISCORD_MAX_THREAD_NAME = 100;

/**
 * Discord through a channel webhook. Images and the videos Discord plays inline (MP4, WebM,
 * QuickTime) are attachments; `maxImageBytes` is the upload limit of each file, videos included.
 */
export const DISCORD_LIMITS: ChannelLimits = Object.freeze({
  maxCharacters: DISCORD_MAX_CONTENT,
  maxMedia: DISCORD_MAX_ATTACHMENTS,
  maxImageBytes: DISCORD_MAX_UPLOAD_BYTES,
  supportedMimeTypes: [
    'image/jpeg',
    'image/png',
    'image/gif',
    'image/webp',
    'video/mp4',
    'video/webm',
    'video/quicktime',
  ],
  // Webhook messages cannot reply to other messages.
  threads: false,
  // No first comment through this service (yet): refused at validation.
  firstComment: false,
  // Attachments have no duration limit (a day stands for none); the upload limit holds for all files.
  video: Object.freeze({
    maxBytes: DISCORD_MAX_UPLOAD_BYTES,
    minDurationSeconds: 0,
    maxDurationSeconds: 24 * 60 * 60,
    mimeTypes: ['video/mp4', 'video/webm', 'video/quicktime'],
    maxPerPost: DISCORD_MAX_ATTACHMENTS,
  }),
});
