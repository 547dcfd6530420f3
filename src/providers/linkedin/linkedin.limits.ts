import type { ChannelLimits, VideoLimits } from '../social-provider.interface';
import { VIDEO_MIME_TYPES } from '../video-limits';

/**
 * LinkedIn's video (Videos API): 75 KB to 500 MB, 3 s to 30 min, MP4 (H.264/AAC), aspect ratio 1:2.4
 * to 2.4:1; one video per post, never with images. MOV, WebM and HEVC are converted once to H.264/AAC
 * MP4 before the upload (MEDIA_VIDEO_TRANSCODE).
 */
export const LINKEDIN_VIDEO_LIMITS: VideoLimits = Object.freeze({
  maxBytes: 500 * 1024 * 1024,
  minDurationSeconds: 3,
  maxDurationSeconds: 30 * 60,
  mimeTypes: [...VIDEO_MIME_TYPES],
  maxPerPost: 1,
  minAspectRatio: 1 / 2.4,
  maxAspectRatio: 2.4,
  maxFrameRate: 60,
  maxLongSide: 4096,
  videoCodecs: ['h264'],
  audioCodecs: ['aac'],
  mixWithImages: false,
});

/**
 * A LinkedIn member or organization page: 3,000 characters of commentary; one image, or 2 to 20 as a
 * multi-image post; JPEG, PNG or GIF. LinkedIn documents a pixel limit (below) but no byte limit for
 * images; 5 MiB is the size integrators commonly report as accepted.
 */
export const LINKEDIN_LIMITS: ChannelLimits = Object.freeze({
  maxCharacters: 3000,
  maxMedia: 20,
  maxImageBytes: 5 * 1024 * 1024,
  supportedMimeTypes: ['image/jpeg', 'image/png', 'image/gif', ...VIDEO_MIME_TYPES],
  video: LINKEDIN_VIDEO_LIMITS,
  // A post cannot reply to a post (replies are comments, not posts): no threads.
  threads: false,
  firstComment: true,
});

/** Largest image LinkedIn's Images API accepts, in pixels (width x height). */
export const LINKEDIN_MAX_IMAGE_PIXELS = 36_152_320;

/** Roles on an organization page that may publish organic posts as the page. */
export const LINKEDIN_POSTING_ROLES: readonly string[] = ['ADMINISTRATOR', 'CONTENT_ADMINISTRATOR', 'CONTENT_ADMIN'];

/** Organization pages listed per authorization (the rest are left out). */
export const LINKEDIN_MAX_ORGANIZATIONS = 50;
