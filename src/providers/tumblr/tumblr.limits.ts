import type { ChannelLimits, VideoLimits } from '../social-provider.interface';

/** Tumblr's native video uploads: MP4 (H.264/AAC), one per post (NPF "Native Tumblr Videos"). */
export const TUMBLR_VIDEO_LIMITS: VideoLimits = Object.freeze({
  maxBytes: 100 * 1024 * 1024,
  minDurationSeconds: 1,
  // The API's own bound: 60 minutes of video uploaded per day and user ("Rate Limits").
  maxDurationSeconds: 60 * 60,
  mimeTypes: ['video/mp4'],
  maxPerPost: 1,
  mixWithImages: true,
});

/**
 * A Tumblr blog, posting in the Neue Post Format: each paragraph of the text is a text block of at most
 * 4,096 code points (the post, at most 1 MB, is capped here at 100,000 characters), up to 30 image
 * blocks and one uploaded video. Tumblr has replies only on its web and apps: no threads, no first
 * comment (docs/adr/0054). docs/networks.md gives the sources.
 */
export const TUMBLR_LIMITS: ChannelLimits = Object.freeze({
  maxCharacters: 100_000,
  maxMedia: 30,
  maxImageBytes: 10 * 1024 * 1024,
  supportedMimeTypes: ['image/jpeg', 'image/png', 'image/gif', 'video/mp4'],
  threads: false,
  firstComment: false,
  video: TUMBLR_VIDEO_LIMITS,
});

/** Longest text block (a paragraph), in Unicode code points. */
export const TUMBLR_MAX_TEXT_BLOCK = 4096;
/** Longest alt text of an image block. */
export const TUMBLR_MAX_ALT_TEXT = 4096;
/** Most tags this service sends with a post, and the longest tag. */
export const TUMBLR_MAX_TAGS = 30;
export const TUMBLR_MAX_TAG_LENGTH = 140;
