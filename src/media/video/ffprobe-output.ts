/**
 * Reading ffprobe's JSON (`-show_format -show_streams -of json`) into a `VideoProbe`, and its packet
 * lines (`-show_entries packet=stream_index,pts_time,duration_time -of csv=p=0`) into where the media
 * data ends. Pure functions: the spec feeds them what ffprobe printed.
 */
import { VideoNoVideoStreamError, VideoUndecodableError } from './video.errors';
import type { VideoContainer, VideoProbe } from './video.interface';
import { VIDEO_MIME_TYPES } from './video.interface';

export interface FfprobeStream {
  index?: number;
  codec_type?: string;
  codec_name?: string;
  profile?: string;
  width?: number;
  height?: number;
  pix_fmt?: string;
  sample_aspect_ratio?: string;
  avg_frame_rate?: string;
  r_frame_rate?: string;
  duration?: string;
  bit_rate?: string;
  channels?: number;
  sample_rate?: string;
  disposition?: { attached_pic?: number };
  tags?: Record<string, string | undefined>;
  side_data_list?: { side_data_type?: string; rotation?: number }[];
}

export interface FfprobeFormat {
  format_name?: string;
  duration?: string;
  start_time?: string;
  size?: string;
  bit_rate?: string;
}

export interface FfprobeJson {
  streams?: FfprobeStream[];
  format?: FfprobeFormat;
}

/** `30000/1001` -> 29.97; null for `0/0`, missing or malformed values. */
export function parseRational(value: string | undefined): number | null {
  if (!value) return null;
  const [n, d = '1'] = value.split('/');
  const num = Number(n);
  const den = Number(d);
  if (!Number.isFinite(num) || !Number.isFinite(den) || num <= 0 || den <= 0) return null;
  return num / den;
}

/** A decimal number of ffprobe (`2.000000`), or null for `N/A` and the like. */
export function parseNumber(value: string | number | undefined): number | null {
  if (value === undefined || value === '' || value === 'N/A') return null;
  const n = Number(value);
  return Number.isFinite(n) ? n : null;
}

/** Matroska's per-track `DURATION` tag (`00:00:02.007000000`) in seconds. */
export function parseClockDuration(value: string | undefined): number | null {
  const m = /^(\d+):(\d{2}):(\d{2}(?:\.\d+)?)$/.exec(value?.trim() ?? '');
  if (!m) return null;
  return Number(m[1]) * 3600 + Number(m[2]) * 60 + Number(m[3]);
}

/**
 * The clockwise rotation a player applies. ffprobe reports the display matrix's angle
 * counter-clockwise (side data `rotation`, e.g. -90 for a phone held upright); ffprobe before 5.0
 * also printed the matrix as a clockwise `rotate` tag.
 */
export function rotationOf(stream: FfprobeStream): 0 | 90 | 180 | 270 {
  const matrix = stream.side_data_list?.find((s) => typeof s.rotation === 'number');
  let clockwise: number | null = null;
  if (matrix?.rotation !== undefined) clockwise = -matrix.rotation;
  else {
    const tag = parseNumber(stream.tags?.rotate);
    if (tag !== null) clockwise = tag;
  }
  if (clockwise === null) return 0;
  const quarter = ((Math.round(clockwise / 90) % 4) + 4) % 4;
  return (quarter * 90) as 0 | 90 | 180 | 270;
}

/** Rounds to 3 decimals (29.97002997 -> 29.97). */
function round3(n: number): number {
  return Math.round(n * 1000) / 1000;
}

export interface ProbeContext {
  container: VideoContainer;
  sizeBytes: number | null;
  faststart: boolean | null;
}

/** The track a player shows: the first video stream that is not a cover picture. */
export function mainVideoStream(json: FfprobeJson): FfprobeStream | undefined {
  return (json.streams ?? []).find((s) => s.codec_type === 'video' && s.disposition?.attached_pic !== 1);
}

/** Seconds the container declares: the file's duration, else the video track's. */
export function declaredDurationSeconds(json: FfprobeJson): number | null {
  const video = mainVideoStream(json);
  return (
    parseNumber(json.format?.duration) ??
    parseNumber(video?.duration) ??
    parseClockDuration(video?.tags?.DURATION ?? video?.tags?.duration)
  );
}

/**
 * Turns ffprobe's JSON into a `VideoProbe`. `durationSeconds` overrides what the container declares
 * (a WebM recorded live declares none; the caller then measures it from the packets).
 */
export function toVideoProbe(json: FfprobeJson, ctx: ProbeContext, durationSeconds?: number | null): VideoProbe {
  const streams = json.streams ?? [];
  const video = mainVideoStream(json);
  const audio = streams.find((s) => s.codec_type === 'audio');
  if (streams.length === 0) {
    throw new VideoUndecodableError('ffprobe finds no track in it at all (its index may be damaged)');
  }
  if (!video) throw new VideoNoVideoStreamError(audio?.codec_name ?? null);
  if (!video.codec_name || video.codec_name === 'none' || video.codec_name === 'unknown') {
    throw new VideoUndecodableError('its video track uses a codec ffmpeg does not know');
  }
  const codedWidth = video.width ?? 0;
  const codedHeight = video.height ?? 0;
  if (codedWidth <= 0 || codedHeight <= 0) {
    throw new VideoUndecodableError(`the ${video.codec_name} track has no frame size (its data may be damaged)`);
  }
  const seconds = durationSeconds ?? declaredDurationSeconds(json);
  if (seconds === null || seconds <= 0) {
    throw new VideoUndecodableError('the file does not say how long it is, and no frame could be timed');
  }
  const rotation = rotationOf(video);
  // Non-square pixels (anamorphic DV, some broadcasts) are stretched horizontally by the player.
  const sar = parseRational(video.sample_aspect_ratio?.replace(':', '/'));
  const shownWidth = sar && Math.abs(sar - 1) > 0.001 ? Math.round(codedWidth * sar) : codedWidth;
  const turned = rotation === 90 || rotation === 270;
  const frameRate = parseRational(video.avg_frame_rate) ?? parseRational(video.r_frame_rate);
  const sizeBytes = ctx.sizeBytes ?? parseNumber(json.format?.size);
  // Measured the same way whether the bytes came from a file or a pipe (where ffprobe knows no size).
  const bitrate = sizeBytes !== null ? (sizeBytes * 8) / seconds : parseNumber(json.format?.bit_rate);
  const profile = video.profile && video.profile !== 'unknown' ? video.profile : null;
  return {
    container: ctx.container,
    mimeType: VIDEO_MIME_TYPES[ctx.container],
    formatName: json.format?.format_name ?? '',
    sizeBytes,
    durationMs: Math.round(seconds * 1000),
    width: turned ? codedHeight : shownWidth,
    height: turned ? shownWidth : codedHeight,
    codedWidth,
    codedHeight,
    rotation,
    frameRate: frameRate === null ? null : round3(frameRate),
    videoCodec: video.codec_name,
    videoProfile: profile,
    pixelFormat: video.pix_fmt && video.pix_fmt !== 'unknown' ? video.pix_fmt : null,
    videoBitrate: parseNumber(video.bit_rate),
    audioCodec: audio?.codec_name ?? null,
    audioChannels: audio?.channels ?? null,
    audioSampleRate: parseNumber(audio?.sample_rate),
    bitrate: bitrate === null ? null : Math.round(bitrate),
    faststart: ctx.faststart,
  };
}

/**
 * Follows ffprobe's packet lines (`stream_index,pts_time,duration_time`, one per line, possibly
 * split across chunks) and keeps where the media data ends: the latest pts + duration of any packet.
 */
export class PacketEndTracker {
  private rest = '';
  /** Seconds where the last packet read ends, or null before any packet with a timestamp. */
  end: number | null = null;
  packets = 0;

  push(chunk: Buffer | string): void {
    const text = this.rest + chunk.toString();
    const lines = text.split('\n');
    this.rest = lines.pop() ?? '';
    for (const line of lines) this.line(line);
  }

  finish(): void {
    if (this.rest) this.line(this.rest);
    this.rest = '';
  }

  private line(line: string): void {
    const [, pts, duration] = line.trim().split(',');
    const start = parseNumber(pts);
    if (start === null) return;
    this.packets++;
    const end = start + (parseNumber(duration) ?? 0);
    if (this.end === null || end > this.end) this.end = end;
  }
}
