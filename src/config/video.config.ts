import { registerAs } from '@nestjs/config';
import { Transform } from 'class-transformer';
import { IsBoolean, IsIn, IsInt, IsString, Matches, Max, Min, MinLength } from 'class-validator';
import { toBool, validateEnv } from './validate-env';

/** x264's speed presets, fastest first: a slower one makes smaller files for the same quality. */
export const X264_PRESETS = [
  'ultrafast',
  'superfast',
  'veryfast',
  'faster',
  'fast',
  'medium',
  'slow',
  'slower',
  'veryslow',
] as const;
export type X264Preset = (typeof X264_PRESETS)[number];

/**
 * A program name looked up on PATH (`ffprobe`) or a path to it (`/usr/bin/ffprobe`). The binaries are
 * started with an argument vector, never through a shell; this only keeps option-like or multi-line
 * values out.
 */
const BINARY = /^[^\s-][^\n\r\0]*$/;

export class VideoEnv {
  /** The ffprobe binary (Debian package `ffmpeg`): a name looked up on PATH or an absolute path. */
  @IsString()
  @MinLength(1)
  @Matches(BINARY, { message: 'must be a program name or a path' })
  FFPROBE_PATH: string = 'ffprobe';

  /** The ffmpeg binary (posters and conversions): a name looked up on PATH or an absolute path. */
  @IsString()
  @MinLength(1)
  @Matches(BINARY, { message: 'must be a program name or a path' })
  FFMPEG_PATH: string = 'ffmpeg';

  /** Time budget of one probe or poster extraction; the child process is killed when it runs out. */
  @IsInt()
  @Min(1)
  @Max(600)
  VIDEO_PROBE_TIMEOUT_SECONDS: number = 30;

  /** Time budget of one conversion (remux or transcode) of a video; the child process is killed beyond it. */
  @IsInt()
  @Min(10)
  @Max(24 * 60 * 60)
  VIDEO_CONVERT_TIMEOUT_SECONDS: number = 3600;

  /** Threads one ffmpeg conversion may use (0 = as many as ffmpeg wants, usually every core). */
  @IsInt()
  @Min(0)
  @Max(64)
  VIDEO_FFMPEG_THREADS: number = 2;

  /** x264 preset of transcodes to H.264: faster presets use less CPU and make bigger files. */
  @IsIn(X264_PRESETS)
  VIDEO_X264_PRESET: string = 'veryfast';

  /**
   * Most pixels one frame of an uploaded video may have (width x height, coded or as displayed); larger
   * videos are refused at finalize (422). Default 9,437,184 = 4096 x 2304: every 4K format (UHD 3840 x 2160,
   * DCI 4096 x 2160) and nothing above, since decoding one frame costs memory and time in proportion.
   */
  @IsInt()
  @Min(64 * 64)
  @Max(16384 * 16384)
  VIDEO_MAX_PIXELS: number = 4096 * 2304;

  /** Most pixels a side of an uploaded video's frame may have (width and height each); larger are refused (422). */
  @IsInt()
  @Min(64)
  @Max(16384)
  VIDEO_MAX_DIMENSION: number = 4096;

  /** Largest declared size of a video upload (video/mp4, video/quicktime, video/webm), 413 above; default 4 GiB. */
  @IsInt()
  @Min(1)
  @Max(Number.MAX_SAFE_INTEGER)
  MEDIA_MAX_VIDEO_BYTES: number = 4 * 1024 * 1024 * 1024;

  /** Videos one process probes or converts at a time (finalize, posters, conversions); the others wait their turn. */
  @IsInt()
  @Min(1)
  @Max(64)
  MEDIA_VIDEO_CONCURRENCY: number = 2;

  /**
   * Whether the service converts a video a network cannot take as it is (HEVC or WebM where H.264/AAC MP4
   * is needed, the index at the end) in a background job. False: no conversion; validation refuses what
   * the network would refuse.
   */
  @Transform(toBool)
  @IsBoolean()
  MEDIA_VIDEO_TRANSCODE: boolean = true;

  /**
   * Longest a publication waits for a network to finish processing a video (checked by delayed polls, no
   * worker held); beyond it the target fails with `video_processing_timeout`.
   */
  @IsInt()
  @Min(1)
  @Max(24 * 60 * 60)
  VIDEO_PROCESSING_MAX_WAIT_SECONDS: number = 1800;
}

/**
 * Where ffprobe/ffmpeg are and how long and how wide they may run (src/media/video/). Read on its own
 * (`videoConfig()`) or injected (`@Inject(videoConfig.KEY)`) once a module registers the namespace
 * (`ConfigModule.forFeature(videoConfig)` or the global list).
 */
export const videoConfig = registerAs('video', () => {
  const env = validateEnv(VideoEnv);
  return {
    ffprobePath: env.FFPROBE_PATH,
    ffmpegPath: env.FFMPEG_PATH,
    probeTimeoutMs: env.VIDEO_PROBE_TIMEOUT_SECONDS * 1000,
    convertTimeoutMs: env.VIDEO_CONVERT_TIMEOUT_SECONDS * 1000,
    threads: env.VIDEO_FFMPEG_THREADS,
    x264Preset: env.VIDEO_X264_PRESET as X264Preset,
    maxVideoBytes: env.MEDIA_MAX_VIDEO_BYTES,
    maxPixels: env.VIDEO_MAX_PIXELS,
    maxDimension: env.VIDEO_MAX_DIMENSION,
    concurrency: env.MEDIA_VIDEO_CONCURRENCY,
    transcode: env.MEDIA_VIDEO_TRANSCODE,
    processingMaxWaitMs: env.VIDEO_PROCESSING_MAX_WAIT_SECONDS * 1000,
  };
});
export type VideoConfig = ReturnType<typeof videoConfig>;
