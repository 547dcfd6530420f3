/** The types of the video toolkit (src/media/video/), shared by media, validation and publishing. */

/** The video types the service accepts, by container. */
export type VideoMimeType = 'video/mp4' | 'video/quicktime' | 'video/webm';
/** Container families: ISO base media (MP4, QuickTime MOV) and Matroska's WebM profile. */
export type VideoContainer = 'mp4' | 'quicktime' | 'webm';

export const VIDEO_MIME_TYPES: Readonly<Record<VideoContainer, VideoMimeType>> = {
  mp4: 'video/mp4',
  quicktime: 'video/quicktime',
  webm: 'video/webm',
};

/** What `probe` learns about a video (ffprobe's reading plus a check of the container's layout). */
export interface VideoProbe {
  /** The container the bytes are, whatever the file was declared as. */
  container: VideoContainer;
  /** The MIME type of that container. */
  mimeType: VideoMimeType;
  /** ffprobe's demuxer name (`mov,mp4,m4a,3gp,3g2,mj2`, `matroska,webm`). */
  formatName: string;
  /** Bytes of the file (or of the stream read), when known. */
  sizeBytes: number | null;
  durationMs: number;
  /** As displayed: rotation applied (90/270 swap width and height) and non-square pixels stretched. */
  width: number;
  height: number;
  /** As stored in the stream (before rotation). */
  codedWidth: number;
  codedHeight: number;
  /** Clockwise quarter turns a player applies, in degrees, from the display matrix or the `rotate` tag. */
  rotation: 0 | 90 | 180 | 270;
  /** Frames per second (avg_frame_rate, else r_frame_rate), or null when the container does not say. */
  frameRate: number | null;
  /** ffmpeg codec name of the first video track: `h264`, `hevc`, `vp8`, `vp9`, `av1`, ... */
  videoCodec: string;
  /** `High`, `Main`, `Profile 0`, ... or null. */
  videoProfile: string | null;
  /** `yuv420p`, `yuv420p10le`, ... or null when unknown. */
  pixelFormat: string | null;
  /** Bits per second of the video track, when the container says. */
  videoBitrate: number | null;
  /** ffmpeg codec name of the first audio track (`aac`, `opus`, `mp3`, ...), or null when silent. */
  audioCodec: string | null;
  audioChannels: number | null;
  audioSampleRate: number | null;
  /** Bits per second of the whole file (its size over its duration when the container does not say). */
  bitrate: number | null;
  /**
   * MP4/MOV: the index (moov) comes before the media data (mdat), so a player can start while the
   * file downloads ("faststart", progressive download). Null for WebM, where it does not apply.
   */
  faststart: boolean | null;
}

/**
 * What one network takes, as far as video goes. Every field is optional: absent means no limit.
 * Sizes are as displayed (rotation applied).
 */
export interface VideoRequirements {
  /** The network's name in messages ("Instagram"); default "this network". */
  label?: string;
  /** Container types taken (`video/mp4`, `video/quicktime`, `video/webm`). */
  mimeTypes?: readonly string[];
  /** Video codecs taken, as ffmpeg names them (`h264`, `hevc`, `vp9`, ...). */
  videoCodecs?: readonly string[];
  /** Audio codecs taken (`aac`, `opus`, ...); a silent video is always fine. */
  audioCodecs?: readonly string[];
  /** Pixel formats taken (`yuv420p`). */
  pixelFormats?: readonly string[];
  maxBytes?: number;
  minDurationSeconds?: number;
  maxDurationSeconds?: number;
  maxFrameRate?: number;
  minFrameRate?: number;
  /** Bits per second of the whole file. */
  maxBitrate?: number;
  /** Width over height, e.g. 0.5625 for 9:16 and 1.7778 for 16:9. */
  minAspectRatio?: number;
  maxAspectRatio?: number;
  /** Longest side in pixels (either orientation). */
  maxLongSide?: number;
  /** Shortest side in pixels (either orientation). */
  maxShortSide?: number;
  minLongSide?: number;
  minShortSide?: number;
  /** MP4/MOV must have the index first (progressive download). */
  faststart?: boolean;
}

/** What makes a video acceptable: nothing, moving its index to the front, or a new H.264/AAC MP4. */
export type VideoConversion = 'none' | 'remux' | 'transcode';

export interface VideoNeeds {
  /** True when the video can be published: as it is, or after `conversion`. */
  ok: boolean;
  /** What no conversion fixes (too long, too big, wrong shape, ...), each stating the limit. */
  problems: string[];
  /** What the conversion fixes, each stating the limit; empty when `conversion` is `none`. */
  fixes: string[];
  conversion: VideoConversion;
}

/**
 * Caps of a transcode to H.264/AAC MP4; `VideoRequirements` fits (its other fields are ignored).
 * Without caps the output keeps the source's size and frame rate.
 */
export interface TranscodeCaps {
  maxFrameRate?: number;
  /** Bits per second of the whole file (video + audio). */
  maxBitrate?: number;
  maxLongSide?: number;
  maxShortSide?: number;
}

/** A JPEG frame of a video. */
export interface VideoPoster {
  data: Buffer;
  width: number;
  height: number;
  /** Where in the video it was taken, in ms. */
  atMs: number;
}

/** Which binaries answered, with their version lines, or why video processing is unavailable. */
export interface VideoToolsStatus {
  available: boolean;
  ffprobe: { path: string; version: string | null };
  ffmpeg: { path: string; version: string | null };
  /** Why not, when not available (a message for the log and for 503 answers). */
  problem: string | null;
}
