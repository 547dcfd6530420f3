import { asNumber, asStringArray, at } from '../provider-json.util';
import type { ChannelLimits } from '../social-provider.interface';

export const MASTODON_DEFAULT_LIMITS: ChannelLimits = Object.freeze({
  maxCharacters: 500,
  maxMedia: 4,
  maxImageBytes: 16 * 1024 * 1024,
  supportedMimeTypes: ['image/jpeg', 'image/png', 'image/gif', 'image/webp', 'image/heic', 'image/heif', 'image/avif'],
  // A reply is a status with in_reply_to_id.
  threads: true,
  firstComment: true,
});

function positiveInt(value: unknown): number | undefined {
  const n = asNumber(value);
  return n !== undefined && n > 0 ? Math.floor(n) : undefined;
}

/**
 * Limits from GET /api/v2/instance (`configuration.statuses` / `configuration.media_attachments`).
 * Only image MIME types are kept, because maxImageBytes is the only size limit carried.
 */
export function limitsFromInstance(instance: unknown): ChannelLimits {
  const statuses = at(instance, 'configuration', 'statuses');
  const media = at(instance, 'configuration', 'media_attachments');
  const mimeTypes = asStringArray(at(media, 'supported_mime_types'))?.filter((t) => t.startsWith('image/'));
  return {
    maxCharacters: positiveInt(at(statuses, 'max_characters')) ?? MASTODON_DEFAULT_LIMITS.maxCharacters,
    maxMedia: positiveInt(at(statuses, 'max_media_attachments')) ?? MASTODON_DEFAULT_LIMITS.maxMedia,
    maxImageBytes: positiveInt(at(media, 'image_size_limit')) ?? MASTODON_DEFAULT_LIMITS.maxImageBytes,
    supportedMimeTypes: mimeTypes && mimeTypes.length > 0 ? mimeTypes : [...MASTODON_DEFAULT_LIMITS.supportedMimeTypes],
    threads: true,
    firstComment: true,
  };
}
