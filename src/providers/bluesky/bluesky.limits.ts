import type { ChannelLimits, VideoLimits } from '../social-provider.interface';
import { VIDEO_MIME_TYPES } from '../video-limits';

/**
 * Bluesky's video (app.bsky.embed.video, through the video service): up to 300,000,000 bytes (the
 * lexicon's `video.maxSize` since 2026-08-11; test/fixtures/networks/bluesky/SOURCE.md) and 3 minutes,
 * MP4, MOV or WebM, one per post and never beside images (an embed is either images or a video).
 */
export const BLUESKY_VIDEO_LIMITS: VideoLimits = Object.freeze({
  maxBytes: 300 * 1000 * 1000,
  minDurationSeconds: 0,
  maxDurationSeconds: 180,
  mimeTypes: [...VIDEO_MIME_TYPES],
  maxPerPost: 1,
  mixWithImages: false,
});

/**
 * Bluesky's limits are the same for every account: the lexicons of app.bsky.feed.post (300 graphemes)
 * and app.bsky.embed.images (4 images of at most 2,000,000 bytes each, `image.maxSize`).
 */
export const BLUESKY_LIMITS: ChannelLimits = Object.freeze({
  maxCharacters: 300,
  maxMedia: 4,
  maxImageBytes: 2_000_000,
  supportedMimeTypes: ['image/png', 'image/jpeg', 'image/webp', 'image/gif', ...VIDEO_MIME_TYPES],
  video: BLUESKY_VIDEO_LIMITS,
  // A reply is a post record with `reply {root, parent}`.
  threads: true,
  firstComment: true,
});

/** app.bsky.feed.post allows at most 3000 UTF-8 bytes of text besides the 300 graphemes. */
export const BLUESKY_MAX_TEXT_BYTES = 3000;
