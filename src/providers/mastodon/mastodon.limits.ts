import { asNumber, asStringArray, at } from '../provider-json.util';
import type { ChannelLimits, VideoLimits } from '../social-provider.interface';
import { VIDEO_MIME_TYPES } from '../video-limits';

/**
 * Mastodon's video by default (4.x, `MediaAttachment`: MAX_VIDEO_FRAME_RATE 120, MAX_VIDEO_MATRIX_LIMIT
 * 8,294,400 = 3840 x 2160, as current servers advertise them): up to 99 MB; MP4, MOV and WebM (the
 * instance transcodes them itself); one video per post, never beside images. The instance refuses a
 * video above its frame rate or pixel limit, so validation does too. Mastodon documents no duration
 * limit: a day stands for none. An instance's own limits are read at connect
 * (`configuration.media_attachments` of /api/v2/instance).
 */
export const MASTODON_DEFAULT_VIDEO: VideoLimits = Object.freeze({
  maxBytes: 99 * 1024 * 1024,
  minDurationSeconds: 0,
  maxDurationSeconds: 24 * 60 * 60,
  mimeTypes: [...VIDEO_MIME_TYPES],
  maxPerPost: 1,
  maxFrameRate: 120,
  maxPixels: 8_294_400,
  mixWithImages: false,
});

const IMAGE_TYPES = ['image/jpeg', 'image/png', 'image/gif', 'image/webp', 'image/heic', 'image/heif', 'image/avif'];

export const MASTODON_DEFAULT_LIMITS: ChannelLimits = Object.freeze({
  maxCharacters: 500,
  maxMedia: 4,
  maxImageBytes: 16 * 1024 * 1024,
  supportedMimeTypes: [...IMAGE_TYPES, ...VIDEO_MIME_TYPES],
  video: MASTODON_DEFAULT_VIDEO,
  // A reply is a status with in_reply_to_id.
  threads: true,
  firstComment: true,
});

function positiveInt(value: unknown): number | undefined {
  const n = asNumber(value);
  return n !== undefined && n > 0 ? Math.floor(n) : undefined;
}

/**
 * The instance's video limits (`video_size_limit`, `video_frame_rate_limit`, `video_matrix_limit`,
 * the video types among `supported_mime_types`); null when it lists none of the service's video types.
 */
function videoFromInstance(media: unknown): VideoLimits | null {
  const listed = asStringArray(at(media, 'supported_mime_types'));
  const mimeTypes = listed ? VIDEO_MIME_TYPES.filter((t) => listed.includes(t)) : [...MASTODON_DEFAULT_VIDEO.mimeTypes];
  if (mimeTypes.length === 0) return null;
  return {
    ...MASTODON_DEFAULT_VIDEO,
    mimeTypes,
    maxBytes: positiveInt(at(media, 'video_size_limit')) ?? MASTODON_DEFAULT_VIDEO.maxBytes,
    maxFrameRate: positiveInt(at(media, 'video_frame_rate_limit')) ?? MASTODON_DEFAULT_VIDEO.maxFrameRate,
    // Pixels of a frame, whatever its shape (3840 x 2160 and 2160 x 3840 alike), as the instance counts them.
    maxPixels: positiveInt(at(media, 'video_matrix_limit')) ?? MASTODON_DEFAULT_VIDEO.maxPixels,
  };
}

/**
 * Limits from GET /api/v2/instance (`configuration.statuses` / `configuration.media_attachments`).
 * Image MIME types are kept in `supportedMimeTypes` with maxImageBytes; video is `video`.
 */
export function limitsFromInstance(instance: unknown): ChannelLimits {
  const statuses = at(instance, 'configuration', 'statuses');
  const media = at(instance, 'configuration', 'media_attachments');
  const mimeTypes = asStringArray(at(media, 'supported_mime_types'))?.filter((t) => t.startsWith('image/'));
  const video = videoFromInstance(media);
  return {
    maxCharacters: positiveInt(at(statuses, 'max_characters')) ?? MASTODON_DEFAULT_LIMITS.maxCharacters,
    maxMedia: positiveInt(at(statuses, 'max_media_attachments')) ?? MASTODON_DEFAULT_LIMITS.maxMedia,
    maxImageBytes: positiveInt(at(media, 'image_size_limit')) ?? MASTODON_DEFAULT_LIMITS.maxImageBytes,
    supportedMimeTypes: [...(mimeTypes && mimeTypes.length > 0 ? mimeTypes : IMAGE_TYPES), ...(video?.mimeTypes ?? [])],
    video,
    threads: true,
    firstComment: true,
  };
}
