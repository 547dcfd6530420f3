import type { ChannelLimits } from '../social-provider.interface';

/** Bluesky's limits are the same for every account (the lexicon of app.bsky.feed.post and the blob cap). */
export const BLUESKY_LIMITS: ChannelLimits = Object.freeze({
  maxCharacters: 300,
  maxMedia: 4,
  maxImageBytes: 1_000_000,
  supportedMimeTypes: ['image/png', 'image/jpeg', 'image/webp', 'image/gif'],
  // A reply is a post record with `reply {root, parent}`.
  threads: true,
  firstComment: true,
});

/** app.bsky.feed.post allows at most 3000 UTF-8 bytes of text besides the 300 graphemes. */
export const BLUESKY_MAX_TEXT_BYTES = 3000;
