import type { ChannelLimits, VideoLimits } from '../social-provider.interface';
import { VIDEO_MIME_TYPES } from '../video-limits';

/**
 * Instagram video (Instagram Platform, content publishing, "Reels specifications"): MOV or MP4 with
 * the moov atom first and no edit lists; H.264 or HEVC, progressive, closed GOP, 4:2:0; AAC audio up
 * to 48 kHz, mono or stereo; 23 to 60 frames per second; at most 1920 columns; aspect ratio from
 * 0.01:1 to 10:1 (9:16 recommended); video bitrate at most 25 Mbps; 3 s to 15 minutes; at most
 * 300 MB. A video alone is published as a Reel (`media_type=REELS`); in a carousel (up to 10 items
 * mixing images and videos) a video item is at most 60 s and 100 MB (INSTAGRAM_CAROUSEL_VIDEO). A
 * WebM (or another codec) is converted once to H.264/AAC MP4 before Instagram downloads it.
 */
export const INSTAGRAM_VIDEO_LIMITS: VideoLimits = Object.freeze({
  maxBytes: 300 * 1024 * 1024,
  minDurationSeconds: 3,
  maxDurationSeconds: 15 * 60,
  mimeTypes: [...VIDEO_MIME_TYPES],
  maxPerPost: 10,
  minAspectRatio: 0.01,
  maxAspectRatio: 10,
  minFrameRate: 23,
  maxFrameRate: 60,
  maxBitrate: 25_000_000,
  videoCodecs: ['h264', 'hevc'],
  audioCodecs: ['aac'],
  mixWithImages: true,
});

/** A video item of a carousel (Instagram's carousel specifications): at most 60 s and 100 MB. */
export const INSTAGRAM_CAROUSEL_VIDEO = Object.freeze({ maxDurationSeconds: 60, maxBytes: 100 * 1024 * 1024 });

/**
 * An Instagram professional account (Instagram API with Instagram Login): a caption of 2,200
 * characters, one image, one video (a Reel), or a carousel of 2 to 10 mixing both; images up to 8 MB.
 * Instagram takes JPEG only: a PNG is converted to JPEG when it is published, and Instagram downloads
 * it from our signed public URL. Feed images must have an aspect ratio between 4:5 and 1.91:1.
 */
export const INSTAGRAM_LIMITS: ChannelLimits = Object.freeze({
  maxCharacters: 2200,
  maxMedia: 10,
  maxImageBytes: 8 * 1024 * 1024,
  supportedMimeTypes: ['image/jpeg', 'image/png'],
  video: INSTAGRAM_VIDEO_LIMITS,
  // Replies are comments, not posts: no threads.
  threads: false,
  firstComment: true,
});

/** Hashtags and @mentions Instagram allows in one caption. */
export const INSTAGRAM_MAX_HASHTAGS = 30;
export const INSTAGRAM_MAX_MENTIONS = 20;

/** Aspect ratios (width / height) of feed images Instagram accepts. */
export const INSTAGRAM_MIN_ASPECT = 4 / 5;
export const INSTAGRAM_MAX_ASPECT = 1.91;

/** Posts an account may publish through the API in 24 hours, when the network does not say (content_publishing_limit). */
export const INSTAGRAM_DEFAULT_DAILY_POSTS = 100;

/** Pause before retrying once the 24-hour publishing quota is used up (Instagram gives no reset time). */
export const INSTAGRAM_QUOTA_RETRY_SECONDS = 3600;
