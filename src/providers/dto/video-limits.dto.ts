import { ApiProperty } from '@nestjs/swagger';
import type { ChannelLimits } from '../social-provider.interface';

/**
 * What a network takes as video, as it documents it. The five first fields always; the others only
 * where the network enforces them (absent: no limit). Sizes are as displayed (rotation applied).
 */
export class VideoLimitsDto {
  /** Largest video file, in bytes. */
  @ApiProperty({ type: 'integer', example: 536_870_912 })
  maxBytes!: number;
  /** Shortest video, in seconds. */
  minDurationSeconds!: number;
  /** Longest video, in seconds. */
  maxDurationSeconds!: number;
  /** Container types taken. */
  @ApiProperty({ type: [String], example: ['video/mp4', 'video/quicktime'] })
  mimeTypes!: string[];
  /** Most videos in one post. */
  @ApiProperty({ type: 'integer', example: 1 })
  maxPerPost!: number;
  /** Narrowest shape taken, width / height (0.5625 is 9:16). */
  minAspectRatio?: number;
  /** Widest shape taken, width / height (1.7778 is 16:9). */
  maxAspectRatio?: number;
  /** Lowest frame rate taken, frames per second. */
  minFrameRate?: number;
  /**
   * Highest frame rate taken: a faster video is converted where the service converts video for the
   * network (refused when conversion is off), refused at validation elsewhere.
   */
  maxFrameRate?: number;
  /** Longest side in pixels, either orientation. */
  maxLongSide?: number;
  /** Shortest side in pixels, at least. */
  minShortSide?: number;
  /** Shortest side in pixels, at most. */
  maxShortSide?: number;
  /** Pixels of one frame (width x height), at most: Mastodon's `video_matrix_limit`. */
  @ApiProperty({ type: 'integer', required: false, example: 8_294_400 })
  maxPixels?: number;
  /** Bits per second of the whole file. */
  maxBitrate?: number;
  /** Video codecs taken (`h264`, ...); absent: any. */
  videoCodecs?: string[];
  /** Audio codecs taken (`aac`, ...); absent: any. */
  audioCodecs?: string[];
  /** False when images and video may not share a post. */
  mixWithImages?: boolean;

  /** A copy of a channel's (or network's) video limits: null where it takes no video, and in limits stored before video. */
  static of(limits: ChannelLimits): VideoLimitsDto | null {
    return limits.video ? { ...limits.video, mimeTypes: [...limits.video.mimeTypes] } : null;
  }
}
