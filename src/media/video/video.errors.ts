import { basename } from 'node:path';

/**
 * What the video toolkit throws. Each error has a stable `reason` and says in its message, in words a
 * person can act on, what is wrong. `inputProblem` separates the file's faults (refuse the upload:
 * 422 UNPROCESSABLE_MEDIA, the item `failed`) from the server's (ffmpeg missing, too slow, crashed:
 * 503 or a retry; the upload is not the client's fault).
 */
export type VideoErrorReason =
  /** The bytes end before the media data they announce does. */
  | 'truncated'
  /** A container with no video track (audio only, or nothing). */
  | 'no_video_stream'
  /** Not a video at all (an image, a document, unknown bytes). */
  | 'not_a_video'
  /** A video, but of another type than the one declared (WebM sent as video/mp4). */
  | 'type_mismatch'
  /** A container ffprobe cannot read, or a video track it cannot decode. */
  | 'undecodable'
  /** Frames larger than the service decodes (VIDEO_MAX_PIXELS, VIDEO_MAX_DIMENSION). */
  | 'too_large'
  /** ffprobe or ffmpeg did not finish within its time budget and was killed. */
  | 'timeout'
  /** ffprobe or ffmpeg cannot be started (not installed, FFPROBE_PATH/FFMPEG_PATH wrong). */
  | 'unavailable'
  /** ffmpeg failed on a file that probed fine, or its output was not what was asked for. */
  | 'conversion_failed';

export abstract class VideoError extends Error {
  abstract readonly reason: VideoErrorReason;
  /** True when the file is at fault (refuse it); false when the server is (retry later, or 503). */
  abstract readonly inputProblem: boolean;
  /**
   * What ffprobe or ffmpeg said (the end of its stderr, with its exit status), for the log only: it
   * names server paths and is no message for a client, so `message` never quotes it.
   */
  toolOutput?: string;
}

export class VideoTruncatedError extends VideoError {
  readonly reason = 'truncated';
  readonly inputProblem = true;
  constructor(detail: string, toolOutput?: string) {
    super(`The video is incomplete (truncated): ${detail}. Upload the whole file again`);
    this.toolOutput = toolOutput;
    this.name = 'VideoTruncatedError';
  }
}

export class VideoNoVideoStreamError extends VideoError {
  readonly reason = 'no_video_stream';
  readonly inputProblem = true;
  constructor(readonly audioCodec: string | null) {
    super(
      audioCodec ? `The file has no video track: it holds only audio (${audioCodec})` : 'The file has no video track',
    );
    this.name = 'VideoNoVideoStreamError';
  }
}

export class VideoNotAVideoError extends VideoError {
  readonly reason = 'not_a_video';
  readonly inputProblem = true;
  constructor(
    /** The type the bytes are (e.g. `image/png`), or null when they are of no type the service knows. */
    readonly actualType: string | null,
    readonly declaredType: string | null,
  ) {
    const what = actualType ? `an image or other non-video file (${actualType})` : 'not a video the service can read';
    const declared = declaredType ? ` (declared as ${declaredType})` : '';
    super(`The file${declared} is ${what}; videos must be MP4, QuickTime (MOV) or WebM`);
    this.name = 'VideoNotAVideoError';
  }
}

export class VideoTypeMismatchError extends VideoError {
  readonly reason = 'type_mismatch';
  readonly inputProblem = true;
  constructor(
    readonly declaredType: string,
    readonly actualType: string,
  ) {
    super(`The file's bytes are ${actualType}, not ${declaredType} as declared`);
    this.name = 'VideoTypeMismatchError';
  }
}

export class VideoUndecodableError extends VideoError {
  readonly reason = 'undecodable';
  readonly inputProblem = true;
  constructor(detail: string, toolOutput?: string) {
    super(`The video cannot be decoded: ${detail}`);
    this.toolOutput = toolOutput;
    this.name = 'VideoUndecodableError';
  }
}

/** The most pixels a frame may have, in all and a side. */
export interface FrameBounds {
  maxPixels: number;
  maxDimension: number;
}

export class VideoTooLargeError extends VideoError {
  readonly reason = 'too_large';
  readonly inputProblem = true;
  constructor(
    readonly width: number,
    readonly height: number,
    readonly bounds: FrameBounds,
  ) {
    super(
      `The video's frames are ${width} x ${height} pixels (${count(width * height)} per frame); ` +
        `this service takes videos of at most ${count(bounds.maxPixels)} pixels per frame and ` +
        `${count(bounds.maxDimension)} pixels a side: scale it down (4K UHD, 3840 x 2160, or less) and upload it again`,
    );
    this.name = 'VideoTooLargeError';
  }
}

export class VideoToolTimeoutError extends VideoError {
  readonly reason = 'timeout';
  readonly inputProblem = false;
  constructor(
    readonly tool: string,
    readonly timeoutMs: number,
    /** The killed child's process id. */
    readonly pid: number | undefined,
  ) {
    super(`${tool} did not finish within ${formatMs(timeoutMs)} and was stopped`);
    this.name = 'VideoToolTimeoutError';
  }
}

export class VideoToolUnavailableError extends VideoError {
  readonly reason = 'unavailable';
  readonly inputProblem = false;
  constructor(
    readonly binary: string,
    readonly detail: string,
  ) {
    // The tool's name only: the configured path is the server's business (the log has it).
    super(
      `Video processing is unavailable on this server: ${basename(binary)} cannot be started (${detail}); ` +
        'install ffmpeg (Debian: apt-get install ffmpeg) or set FFPROBE_PATH and FFMPEG_PATH',
    );
    this.name = 'VideoToolUnavailableError';
  }
}

export class VideoConversionError extends VideoError {
  readonly reason = 'conversion_failed';
  readonly inputProblem = false;
  constructor(detail: string, toolOutput?: string) {
    super(`The video could not be converted: ${detail}`);
    this.toolOutput = toolOutput;
    this.name = 'VideoConversionError';
  }
}

function count(n: number): string {
  return n.toLocaleString('en-US');
}

function formatMs(ms: number): string {
  return ms >= 1000 ? `${Math.round(ms / 100) / 10} s` : `${ms} ms`;
}
