import type { ChannelLimits, VideoLimits } from '../social-provider.interface';
import { VIDEO_MIME_TYPES } from '../video-limits';

/**
 * A Page video (Graph API, Page videos: `POST /{page-id}/videos` with `file_url`, the non-resumable
 * upload Facebook downloads from our signed URL): one video per post, alone, of at most 1 GB and
 * 20 minutes. Facebook recommends MP4 (it takes MOV too) with H.264 and AAC. A WebM is converted once
 * to H.264/AAC MP4 first. A vertical video that fits FACEBOOK_REEL is published as a Reel instead
 * (docs/adr/0040).
 */
export const FACEBOOK_VIDEO_LIMITS: VideoLimits = Object.freeze({
  maxBytes: 1024 * 1024 * 1024,
  minDurationSeconds: 1,
  maxDurationSeconds: 20 * 60,
  mimeTypes: [...VIDEO_MIME_TYPES],
  maxPerPost: 1,
  videoCodecs: ['h264', 'hevc'],
  audioCodecs: ['aac'],
  mixWithImages: false,
});

/**
 * A Reel on a Page (Video API, "Reels Publishing API", specifications): 9:16, at least 540 x 960
 * pixels, 24 to 60 frames per second, 3 to 90 seconds; MP4 recommended.
 */
export const FACEBOOK_REEL = Object.freeze({
  minDurationSeconds: 3,
  maxDurationSeconds: 90,
  /** 9:16 (width / height), with the tolerance of a rounded size. */
  aspectRatio: 9 / 16,
  minWidth: 540,
  minHeight: 960,
  minFrameRate: 24,
  maxFrameRate: 60,
});

/**
 * A Facebook Page: posts of up to 63,206 characters, with a link, one photo or up to 10, or one video
 * (a Reel or a Page video). Facebook downloads each photo and video from our signed public URL
 * (photos JPEG, PNG or GIF of up to 10 MB; videos as FACEBOOK_VIDEO_LIMITS).
 */
export const FACEBOOK_LIMITS: ChannelLimits = Object.freeze({
  maxCharacters: 63_206,
  maxMedia: 10,
  maxImageBytes: 10 * 1024 * 1024,
  supportedMimeTypes: ['image/jpeg', 'image/png', 'image/gif'],
  video: FACEBOOK_VIDEO_LIMITS,
  // Replies are comments, not Page posts: no threads.
  threads: false,
  firstComment: true,
});

/** The Page task that allows publishing as the Page. */
export const FACEBOOK_POSTING_TASK = 'CREATE_CONTENT';

/** Pages listed per authorization (the rest are left out). */
export const FACEBOOK_MAX_PAGES = 100;
