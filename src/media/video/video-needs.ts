import type { VideoConversion, VideoNeeds, VideoProbe, VideoRequirements } from './video.interface';

/** What a transcode makes (VideoToolkit.transcode): H.264 High, yuv420p, AAC, MP4 with its index first. */
export const TRANSCODE_OUTPUT = {
  mimeType: 'video/mp4',
  videoCodec: 'h264',
  audioCodec: 'aac',
  pixelFormat: 'yuv420p',
} as const;

const CODEC_NAMES: Readonly<Record<string, string>> = {
  h264: 'H.264',
  hevc: 'HEVC (H.265)',
  vp8: 'VP8',
  vp9: 'VP9',
  av1: 'AV1',
  mpeg4: 'MPEG-4 Part 2',
  prores: 'ProRes',
  aac: 'AAC',
  opus: 'Opus',
  vorbis: 'Vorbis',
  mp3: 'MP3',
  ac3: 'AC-3',
  eac3: 'E-AC-3',
  flac: 'FLAC',
  pcm_s16le: 'PCM',
};

const CONTAINER_NAMES: Readonly<Record<string, string>> = {
  'video/mp4': 'MP4',
  'video/quicktime': 'QuickTime (MOV)',
  'video/webm': 'WebM',
};

/** How much a measured frame rate may exceed a limit and still pass (29.97 under 30, rounding). */
const FPS_TOLERANCE = 0.01;
/** Relative tolerance of aspect ratio limits (a 1080x1350 video is 4:5 even after rounding). */
const RATIO_TOLERANCE = 0.005;

/**
 * Checks a probed video against what one network takes. Problems no conversion fixes (duration,
 * size, shape, too small, too slow) go to `problems`; the rest (container, codecs, pixel format,
 * frame rate, bitrate and resolution above the limits, index at the end) to `fixes`, with the
 * cheapest conversion that fixes them all: `remux` when only the index is misplaced, otherwise
 * `transcode` to H.264/AAC MP4 (which the network must take, else those become problems too).
 * `allow` caps the conversions the server may make: beyond it, fixes are problems.
 */
export function videoNeeds(
  probe: VideoProbe,
  req: VideoRequirements,
  options: { allow?: VideoConversion } = {},
): VideoNeeds {
  const who = req.label ?? 'this network';
  const problems: string[] = [];
  const transcodeFixes: string[] = [];
  const remuxFixes: string[] = [];
  const seconds = probe.durationMs / 1000;

  if (req.maxDurationSeconds !== undefined && seconds > req.maxDurationSeconds) {
    problems.push(`video is ${fmtSeconds(seconds)} long; ${who} takes at most ${fmtSeconds(req.maxDurationSeconds)}`);
  }
  if (req.minDurationSeconds !== undefined && seconds < req.minDurationSeconds) {
    problems.push(
      `video is ${fmtSeconds(seconds)} long; ${who} takes videos of at least ${fmtSeconds(req.minDurationSeconds)}`,
    );
  }
  if (req.maxBytes !== undefined && probe.sizeBytes !== null && probe.sizeBytes > req.maxBytes) {
    problems.push(`video is ${fmtBytes(probe.sizeBytes)}; ${who} takes at most ${fmtBytes(req.maxBytes)}`);
  }
  const ratio = probe.width / probe.height;
  const { minAspectRatio: minRatio, maxAspectRatio: maxRatio } = req;
  if (
    (minRatio !== undefined && ratio < minRatio * (1 - RATIO_TOLERANCE)) ||
    (maxRatio !== undefined && ratio > maxRatio * (1 + RATIO_TOLERANCE))
  ) {
    const range =
      minRatio !== undefined && maxRatio !== undefined
        ? `from ${fmtRatio(minRatio)} to ${fmtRatio(maxRatio)}`
        : minRatio !== undefined
          ? `of at least ${fmtRatio(minRatio)}`
          : `of at most ${fmtRatio(maxRatio!)}`;
    problems.push(
      `video is ${probe.width}x${probe.height} (aspect ratio ${fmtRatio(ratio)}); ${who} takes aspect ratios ${range}`,
    );
  }
  const longSide = Math.max(probe.width, probe.height);
  const shortSide = Math.min(probe.width, probe.height);
  if (req.minLongSide !== undefined && longSide < req.minLongSide) {
    problems.push(
      `video is ${probe.width}x${probe.height}; ${who} takes at least ${req.minLongSide} px on the long side`,
    );
  }
  if (req.minShortSide !== undefined && shortSide < req.minShortSide) {
    problems.push(
      `video is ${probe.width}x${probe.height}; ${who} takes at least ${req.minShortSide} px on the short side`,
    );
  }
  if (
    req.minFrameRate !== undefined &&
    probe.frameRate !== null &&
    probe.frameRate < req.minFrameRate - FPS_TOLERANCE
  ) {
    problems.push(`video is ${fmtFps(probe.frameRate)}; ${who} takes at least ${fmtFps(req.minFrameRate)}`);
  }

  if (req.mimeTypes && !includes(req.mimeTypes, probe.mimeType)) {
    transcodeFixes.push(
      `video is ${containerName(probe.mimeType)}; ${who} takes ${req.mimeTypes.map(containerName).join(', ')}`,
    );
  }
  if (req.videoCodecs && !includes(req.videoCodecs, probe.videoCodec)) {
    transcodeFixes.push(
      `video is encoded as ${codecName(probe.videoCodec)}; ${who} takes ${req.videoCodecs.map(codecName).join(', ')}`,
    );
  }
  if (req.audioCodecs && probe.audioCodec !== null && !includes(req.audioCodecs, probe.audioCodec)) {
    transcodeFixes.push(
      `audio is ${codecName(probe.audioCodec)}; ${who} takes ${req.audioCodecs.map(codecName).join(', ')}`,
    );
  }
  if (req.pixelFormats && probe.pixelFormat !== null && !includes(req.pixelFormats, probe.pixelFormat)) {
    transcodeFixes.push(`video pixel format is ${probe.pixelFormat}; ${who} takes ${req.pixelFormats.join(', ')}`);
  }
  if (
    req.maxFrameRate !== undefined &&
    probe.frameRate !== null &&
    probe.frameRate > req.maxFrameRate + FPS_TOLERANCE
  ) {
    transcodeFixes.push(`video is ${fmtFps(probe.frameRate)}; ${who} takes at most ${fmtFps(req.maxFrameRate)}`);
  }
  if (req.maxBitrate !== undefined && probe.bitrate !== null && probe.bitrate > req.maxBitrate) {
    transcodeFixes.push(
      `video bitrate is ${fmtBitrate(probe.bitrate)}; ${who} takes at most ${fmtBitrate(req.maxBitrate)}`,
    );
  }
  if (req.maxLongSide !== undefined && longSide > req.maxLongSide) {
    transcodeFixes.push(
      `video is ${probe.width}x${probe.height}; ${who} takes at most ${req.maxLongSide} px on the long side`,
    );
  }
  if (req.maxShortSide !== undefined && shortSide > req.maxShortSide) {
    transcodeFixes.push(
      `video is ${probe.width}x${probe.height}; ${who} takes at most ${req.maxShortSide} px on the short side`,
    );
  }
  if (req.faststart && probe.faststart === false) {
    remuxFixes.push(
      `the video's index (moov) is at the end of the file; ${who} needs it first, for progressive download`,
    );
  }

  let conversion: VideoConversion = transcodeFixes.length > 0 ? 'transcode' : remuxFixes.length > 0 ? 'remux' : 'none';
  let fixes = [...transcodeFixes, ...remuxFixes];
  if (conversion === 'transcode' && !takesTranscodeOutput(req)) {
    // What the server converts to (H.264/AAC MP4) is refused as well: nothing fixes these.
    problems.push(...transcodeFixes);
    fixes = remuxFixes;
    conversion = remuxFixes.length > 0 ? 'remux' : 'none';
  }
  const allow = options.allow ?? 'transcode';
  if (rank(conversion) > rank(allow)) {
    problems.push(...fixes.map((f) => `${f} (this server does not convert videos)`));
    return { ok: false, problems, fixes: [], conversion: 'none' };
  }
  return { ok: problems.length === 0, problems, fixes, conversion };
}

/** Whether the network takes what a transcode makes (H.264/AAC, yuv420p, MP4). */
function takesTranscodeOutput(req: VideoRequirements): boolean {
  return (
    (!req.mimeTypes || includes(req.mimeTypes, TRANSCODE_OUTPUT.mimeType)) &&
    (!req.videoCodecs || includes(req.videoCodecs, TRANSCODE_OUTPUT.videoCodec)) &&
    (!req.audioCodecs || includes(req.audioCodecs, TRANSCODE_OUTPUT.audioCodec)) &&
    (!req.pixelFormats || includes(req.pixelFormats, TRANSCODE_OUTPUT.pixelFormat))
  );
}

function rank(c: VideoConversion): number {
  return c === 'none' ? 0 : c === 'remux' ? 1 : 2;
}

function includes(list: readonly string[], value: string): boolean {
  const v = value.toLowerCase();
  return list.some((x) => x.toLowerCase() === v);
}

function codecName(codec: string): string {
  return CODEC_NAMES[codec.toLowerCase()] ?? codec;
}

function containerName(mimeType: string): string {
  return CONTAINER_NAMES[mimeType.toLowerCase()] ?? mimeType;
}

/** Shortest decimal form up to `digits` decimals (2.50 -> 2.5, 140.0 -> 140). */
function trim(n: number, digits: number): string {
  return String(Number(n.toFixed(digits)));
}

export function fmtSeconds(s: number): string {
  return `${trim(s, 1)} s`;
}

export function fmtFps(fps: number): string {
  return `${trim(fps, 2)} fps`;
}

export function fmtBytes(bytes: number): string {
  const GiB = 1024 ** 3;
  const MiB = 1024 ** 2;
  if (bytes >= GiB) return `${trim(bytes / GiB, 2)} GiB`;
  if (bytes >= MiB) return `${trim(bytes / MiB, 1)} MiB`;
  if (bytes >= 1024) return `${trim(bytes / 1024, 1)} KiB`;
  return `${bytes} bytes`;
}

export function fmtBitrate(bps: number): string {
  if (bps >= 1_000_000) return `${trim(bps / 1_000_000, 1)} Mbit/s`;
  return `${trim(bps / 1000, 0)} kbit/s`;
}

/** Ratios people name by their sides; others are written as decimals (`1.91:1`). */
const NAMED_RATIOS: readonly [number, number][] = [
  [1, 1],
  [4, 5],
  [5, 4],
  [3, 4],
  [4, 3],
  [2, 3],
  [3, 2],
  [9, 16],
  [16, 9],
  [9, 21],
  [21, 9],
  [1, 2],
  [2, 1],
];

/** A width/height ratio as its usual name when it has one (0.5625 -> 9:16), else `1.91:1`. */
export function fmtRatio(ratio: number): string {
  const named = NAMED_RATIOS.find(([w, h]) => Math.abs(w / h - ratio) <= (w / h) * 0.003);
  return named ? `${named[0]}:${named[1]}` : `${trim(ratio, 2)}:1`;
}
