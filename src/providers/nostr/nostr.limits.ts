import type { ChannelLimits } from '../social-provider.interface';
import { VIDEO_MIME_TYPES } from '../video-limits';

/**
 * Nostr sets no length of its own: relays do (NIP-11 `limitation.max_content_length`, read at connect;
 * the smallest of the channel's relays wins). 8,196 characters stands in where none says, the value
 * relay.damus.io advertised. Media are not uploaded: notes link the service's public URL (NIP-92
 * `imeta`), so the bounds are the service's own; four per note, as clients show them.
 */
export const NOSTR_DEFAULT_MAX_CHARACTERS = 8_196;

export const NOSTR_LIMITS: ChannelLimits = Object.freeze({
  maxCharacters: NOSTR_DEFAULT_MAX_CHARACTERS,
  maxMedia: 4,
  maxImageBytes: 20 * 1024 * 1024,
  supportedMimeTypes: ['image/jpeg', 'image/png', 'image/gif', 'image/webp', ...VIDEO_MIME_TYPES],
  // A thread part and a first comment are kind-1 replies (NIP-10 `e` tags with root/reply markers).
  threads: true,
  firstComment: true,
  video: Object.freeze({
    maxBytes: 200 * 1024 * 1024,
    minDurationSeconds: 0,
    maxDurationSeconds: 24 * 60 * 60,
    mimeTypes: [...VIDEO_MIME_TYPES],
    maxPerPost: 4,
  }),
});
