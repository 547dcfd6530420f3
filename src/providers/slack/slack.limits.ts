import type { ChannelLimits } from '../social-provider.interface';

/** The text goes in one section block, whose text Slack limits to 3,000 characters. */
export const SLACK_MAX_TEXT = 3000;
/** Files shared in one message (files.completeUploadExternal). */
export const SLACK_MAX_FILES = 10;
/**
 * Longest alt text of a file (`alt_txt` of files.getUploadURLExternal), in characters: Slack answers
 * `alt_txt_too_large` beyond it. The service takes 1,500 for every network, so Slack's own validation
 * refuses longer ones before anything is sent.
 */
export const SLACK_MAX_ALT_TEXT = 1000;
/** Slack's file size limit. */
export const SLACK_MAX_FILE_BYTES = 1024 * 1024 * 1024;

/**
 * Slack through a bot token. Images and videos are files shared into the channel with the text as
 * their message; `maxImageBytes` is Slack's file limit (1 GB), the same for videos.
 */
export const SLACK_LIMITS: ChannelLimits = Object.freeze({
  maxCharacters: SLACK_MAX_TEXT,
  maxMedia: SLACK_MAX_FILES,
  maxImageBytes: SLACK_MAX_FILE_BYTES,
  supportedMimeTypes: [
    'image/jpeg',
    'image/png',
    'image/gif',
    'image/webp',
    'video/mp4',
    'video/quicktime',
    'video/webm',
  ],
  // Slack threads are flat (every reply answers the first message), not chains of replies.
  threads: false,
  // No first comment through this service (yet): refused at validation.
  firstComment: false,
  // Videos are files like any other: Slack's file limit, no duration limit (a day stands for none).
  video: Object.freeze({
    maxBytes: SLACK_MAX_FILE_BYTES,
    minDurationSeconds: 0,
    maxDurationSeconds: 24 * 60 * 60,
    mimeTypes: ['video/mp4', 'video/quicktime', 'video/webm'],
    maxPerPost: SLACK_MAX_FILES,
  }),
});
