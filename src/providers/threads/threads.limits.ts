import type { ChannelLimits, VideoLimits } from '../social-provider.interface';
import { VIDEO_MIME_TYPES } from '../video-limits';

/**
 * Threads video (Threads API, "Media specifications", video): MOV or MP4 with the moov atom first and
 * no edit lists; H.264 or HEVC, progressive, 4:2:0; AAC audio up to 48 kHz; 23 to 60 frames per
 * second; at most 1920 columns; aspect ratio from 0.01:1 to 10:1 (9:16 recommended); at most 25 Mbps;
 * longer than 0 s and at most 300 s (5 minutes); at most 1 GB. A carousel takes images and videos
 * together, up to 20 items. A WebM (or another codec) is converted once to H.264/AAC MP4 before
 * Threads downloads it; MOV/MP4 with the index at the end are remuxed.
 */
export const THREADS_VIDEO_LIMITS: VideoLimits = Object.freeze({
  maxBytes: 1024 * 1024 * 1024,
  minDurationSeconds: 0,
  maxDurationSeconds: 300,
  mimeTypes: [...VIDEO_MIME_TYPES],
  maxPerPost: 20,
  minAspectRatio: 0.01,
  maxAspectRatio: 10,
  minFrameRate: 23,
  maxFrameRate: 60,
  maxBitrate: 25_000_000,
  videoCodecs: ['h264', 'hevc'],
  audioCodecs: ['aac'],
  mixWithImages: true,
});

/**
 * A Threads profile: 500 characters of text (emojis count their UTF-8 bytes), one image or video, or
 * a carousel of 2 to 20 mixing both; JPEG or PNG of up to 8 MB, videos as THREADS_VIDEO_LIMITS.
 * Threads downloads each file from our signed public URL.
 */
export const THREADS_LIMITS: ChannelLimits = Object.freeze({
  maxCharacters: 500,
  maxMedia: 20,
  maxImageBytes: 8 * 1024 * 1024,
  supportedMimeTypes: ['image/jpeg', 'image/png'],
  video: THREADS_VIDEO_LIMITS,
  // A reply is a container with `reply_to_id`.
  threads: true,
  firstComment: true,
});

/**
 * Longest alt text of an image or video (`alt_text` of a media container), in characters: the
 * Threads API reference ("Publishing") gives 1,000. The service takes 1,500 for every network, so
 * Threads' own validation refuses longer ones before anything is sent.
 */
export const THREADS_MAX_ALT_TEXT = 1000;

/** Posts a profile may publish through the API in 24 hours, when the network does not say (threads_publishing_limit). */
export const THREADS_DEFAULT_DAILY_POSTS = 250;

/** Pause before retrying once the 24-hour publishing quota is used up (Threads gives no reset time). */
export const THREADS_QUOTA_RETRY_SECONDS = 3600;
