import type { ChannelLimits, VideoLimits } from '../social-provider.interface';
import { VIDEO_MIME_TYPES } from '../video-limits';

/**
 * X's video (media_category `tweet_video`): up to 512 MB and 140 s (0.5 s at least), H.264 High with
 * AAC in MP4 or MOV, at most 60 fps, 1920 x 1200 (either orientation), aspect ratio 1:3 to 3:1, 25
 * Mbit/s; one video per post, never with images. WebM and HEVC are taken: the service converts them
 * once to H.264/AAC MP4 before the upload (MEDIA_VIDEO_TRANSCODE).
 */
export const X_VIDEO_LIMITS: VideoLimits = Object.freeze({
  maxBytes: 512 * 1024 * 1024,
  minDurationSeconds: 0.5,
  maxDurationSeconds: 140,
  mimeTypes: [...VIDEO_MIME_TYPES],
  maxPerPost: 1,
  minAspectRatio: 1 / 3,
  maxAspectRatio: 3,
  maxFrameRate: 60,
  maxLongSide: 1920,
  maxShortSide: 1200,
  minShortSide: 32,
  maxBitrate: 25_000_000,
  videoCodecs: ['h264'],
  audioCodecs: ['aac'],
  mixWithImages: false,
});

/** The containers X itself takes; others are converted first. */
export const X_VIDEO_CONTAINERS = ['video/mp4', 'video/quicktime'];

/** A standard (non-Premium) X account: 280 weighted characters, 4 images of up to 5 MB, or one video. */
export const X_LIMITS: ChannelLimits = Object.freeze({
  maxCharacters: 280,
  maxMedia: 4,
  maxImageBytes: 5 * 1024 * 1024,
  supportedMimeTypes: ['image/jpeg', 'image/png', 'image/gif', 'image/webp', ...VIDEO_MIME_TYPES],
  video: X_VIDEO_LIMITS,
  // A reply is a post with `reply.in_reply_to_tweet_id`.
  threads: true,
  firstComment: true,
});

/** Longest alt text X takes for an image (`POST /2/media/metadata`), in characters. */
export const X_MAX_ALT_TEXT = 1000;

/** Bytes sent per APPEND of the chunked media upload. */
export const X_UPLOAD_CHUNK_BYTES = 1024 * 1024;
