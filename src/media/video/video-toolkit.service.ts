import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { open, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { videoConfig, type VideoConfig } from '../../config/video.config';
import { MIME_SNIFF_BYTES, normalizeMimeType, sniffMimeType } from '../media-type.util';
import { lastLines, runTool, startTool, type ToolProcess, type ToolResult } from './ffmpeg-process';
import {
  declaredDurationSeconds,
  PacketEndTracker,
  parseNumber,
  toVideoProbe,
  type FfprobeJson,
} from './ffprobe-output';
import { BoxLayoutScanner, readBoxLayout, type BoxLayout } from './iso-box-layout';
import { fmtSeconds } from './video-needs';
import {
  VideoConversionError,
  VideoError,
  VideoTooLargeError,
  VideoNotAVideoError,
  VideoToolTimeoutError,
  VideoTruncatedError,
  VideoTypeMismatchError,
  VideoUndecodableError,
} from './video.errors';
import {
  VIDEO_MIME_TYPES,
  type TranscodeCaps,
  type VideoContainer,
  type VideoPoster,
  type VideoProbe,
  type VideoToolsStatus,
} from './video.interface';

export { videoNeeds, TRANSCODE_OUTPUT } from './video-needs';

export interface ProbeOptions {
  /** The type the client declared; bytes of another type fail with `VideoTypeMismatchError`. */
  declaredType?: string;
  /**
   * Also read the packets of the last seconds (a file: a seek; a stream: all of it) to find media
   * data that stops before the duration the container declares. Default true.
   */
  checkIntegrity?: boolean;
  /** Default: VIDEO_PROBE_TIMEOUT_SECONDS. */
  timeoutMs?: number;
  signal?: AbortSignal;
}

export interface PosterOptions {
  /** The video's probe, when the caller has it (saves one ffprobe run). */
  probe?: VideoProbe;
  /** Where to take the frame; default 10% into the video, at most 1 s in. */
  atMs?: number;
  /** Longest side of the JPEG; smaller videos keep their size. Default 1280. */
  maxLongSide?: number;
  timeoutMs?: number;
  signal?: AbortSignal;
}

export interface ConvertOptions {
  /** The source's probe, when the caller has it (saves one ffprobe run). */
  probe?: VideoProbe;
  /** Default: VIDEO_CONVERT_TIMEOUT_SECONDS. */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** AAC bitrate of a transcode, bits/s; default 128 kbit/s (less when `maxBitrate` is tight). */
  audioBitrate?: number;
}

/** The end of a file is read from this many seconds before it to find where the media data stops. */
const TAIL_SECONDS = 3;
/** Media data may end this much before the declared duration (rounding, edit lists, trailing silence). */
const END_TOLERANCE_SECONDS = 0.5;
const END_TOLERANCE_SHARE = 0.02;
/** What demuxers say when a file stops in the middle of its data. */
const TRUNCATION_MESSAGES = /partial file|File ended prematurely|moov atom not found/i;
const MAX_PROBE_JSON_BYTES = 4 * 1024 * 1024;
const MAX_POSTER_BYTES = 16 * 1024 * 1024;
const VERSION_TIMEOUT_MS = 5000;
const DEFAULT_POSTER_LONG_SIDE = 1280;
const DEFAULT_AUDIO_BITRATE = 128_000;
/** x264's constant-quality setting of transcodes (lower is better and bigger; 23 is its default). */
const X264_CRF = 23;

/** Demuxer forced per container, so ffmpeg never picks one from the bytes (no playlists, no concat). */
const DEMUXER: Readonly<Record<VideoContainer, string>> = { mp4: 'mov', quicktime: 'mov', webm: 'matroska' };
/** Muxer of a remux: the container the file already is. */
const MUXER: Readonly<Record<VideoContainer, string>> = { mp4: 'mp4', quicktime: 'mov', webm: 'webm' };

/**
 * Video probing, poster frames and conversion with Debian's ffprobe/ffmpeg (docs/adr: video probing
 * with ffprobe). Every run is a child process started with an argument vector, never a shell,
 * bounded in time (killed beyond) and in output; inputs are read with a demuxer chosen from their
 * sniffed bytes and only the `file` and `pipe` protocols.
 */
@Injectable()
export class VideoToolkit implements OnApplicationBootstrap {
  private readonly logger = new Logger(VideoToolkit.name);
  private status: Promise<VideoToolsStatus> | null = null;

  constructor(@Inject(videoConfig.KEY) private readonly config: VideoConfig) {}

  /** Says at start-up, once, whether video can be processed (without holding the start-up up). */
  onApplicationBootstrap(): void {
    void this.checkTools().then((s) => {
      if (s.available) this.logger.log(`Video processing: ${s.ffprobe.version}; ${s.ffmpeg.version}`);
      else {
        this.logger.warn({
          msg: `${s.problem}; video uploads will be refused until it is fixed`,
          ffprobePath: s.ffprobe.path,
          ffmpegPath: s.ffmpeg.path,
        });
      }
    });
  }

  /** Whether ffprobe and ffmpeg both answer (checked once, then remembered). */
  async isAvailable(): Promise<boolean> {
    return (await this.checkTools()).available;
  }

  /** Runs `ffprobe -version` and `ffmpeg -version` (once; `refresh` checks again). */
  checkTools(refresh = false): Promise<VideoToolsStatus> {
    if (!this.status || refresh) this.status = this.readTools();
    return this.status;
  }

  /**
   * Reads a video: a file by path (preferred: the end is read with a seek) or a stream (read once,
   * to its end; it is destroyed on failure). Throws a `VideoError` naming what is wrong with the bytes.
   */
  async probe(source: string | Readable, options: ProbeOptions = {}): Promise<VideoProbe> {
    const timeoutMs = options.timeoutMs ?? this.config.probeTimeoutMs;
    return typeof source === 'string'
      ? this.probeFile(resolve(source), options, Date.now() + timeoutMs)
      : this.probeStream(source, options, timeoutMs);
  }

  /**
   * `probe` and `extractPoster` of a file in one: the end-of-media check and the poster frame, which
   * both need only what the header says, run side by side (at finalize they are most of the wait).
   * A problem with the bytes found by the probe wins over one found taking the poster.
   */
  async probeWithPoster(
    path: string,
    options: ProbeOptions & { poster?: Omit<PosterOptions, 'probe' | 'timeoutMs' | 'signal'> } = {},
  ): Promise<{ probe: VideoProbe; poster: VideoPoster }> {
    const file = resolve(path);
    const deadline = Date.now() + (options.timeoutMs ?? this.config.probeTimeoutMs);
    const header = await this.probeHeader(file, options, deadline);
    if (header.duration === null) {
      // No declared duration: the packets say how long it is, and the poster's time depends on it.
      const probe = this.withinBounds(header.probe(await this.probeEnd(file, header, deadline, options.signal)));
      const poster = await this.extractPoster(file, { ...options.poster, probe, timeoutMs: remaining(deadline) });
      return { probe, poster };
    }
    // Frames beyond the bounds are refused before any of them is decoded.
    const provisional = this.withinBounds(header.probe(header.duration));
    const [end, poster] = await Promise.allSettled([
      options.checkIntegrity === false
        ? Promise.resolve(header.duration)
        : this.probeEnd(file, header, deadline, options.signal),
      this.extractPoster(file, {
        ...options.poster,
        probe: provisional,
        timeoutMs: remaining(deadline),
        signal: options.signal,
      }),
    ]);
    if (end.status === 'rejected') throw end.reason;
    if (poster.status === 'rejected') throw poster.reason;
    return { probe: header.probe(end.value), poster: poster.value };
  }

  /** A JPEG of one frame, as displayed (rotation applied), at most `maxLongSide` on its long side. */
  async extractPoster(path: string, options: PosterOptions = {}): Promise<VideoPoster> {
    const file = resolve(path);
    const deadline = Date.now() + (options.timeoutMs ?? this.config.probeTimeoutMs);
    const probe = options.probe ?? (await this.probeFile(file, { checkIntegrity: false }, deadline));
    const longSide = options.maxLongSide ?? DEFAULT_POSTER_LONG_SIDE;
    const scale = Math.min(1, longSide / Math.max(probe.width, probe.height));
    const width = Math.max(1, Math.round(probe.width * scale));
    const height = Math.max(1, Math.round(probe.height * scale));
    const preferred = options.atMs ?? Math.min(1000, Math.floor(probe.durationMs * 0.1));
    // A frame from the start when there is none at the chosen time (a video shorter than its header says).
    for (const atMs of preferred > 0 ? [preferred, 0] : [0]) {
      const result = await runTool(
        this.config.ffmpegPath,
        [
          ...this.ffmpegCommon(),
          '-ss',
          (atMs / 1000).toFixed(3),
          // One decoding thread: frame threads each hold frames of their own, for a single JPEG.
          '-threads',
          '1',
          ...inputArgs(probe.container, file),
          '-map',
          '0:V:0',
          '-frames:v',
          '1',
          '-filter_threads',
          '1',
          '-vf',
          `scale=${width}:${height}:flags=bicubic,setsar=1`,
          '-threads',
          '1',
          '-pix_fmt',
          'yuvj420p',
          '-q:v',
          '3',
          '-f',
          'image2pipe',
          '-c:v',
          'mjpeg',
          'pipe:1',
        ],
        { timeoutMs: remaining(deadline), maxStdoutBytes: MAX_POSTER_BYTES, signal: options.signal },
      );
      if (result.code !== 0) {
        throw new VideoUndecodableError('no frame could be decoded', toolOutput('ffmpeg', result));
      }
      if (result.stdout.length > 0) return { data: result.stdout, width, height, atMs };
    }
    throw new VideoUndecodableError('no frame of the video could be decoded');
  }

  /**
   * Re-encodes a video to H.264 (High, yuv420p) and AAC in an MP4 with its index first, within the
   * caps (frame rate, bitrate, size; the aspect ratio is kept), rotation applied and metadata dropped.
   * Writes a temporary file beside `output` and renames it, so `output` is complete or absent.
   * Returns the probe of the result.
   */
  async transcode(
    input: string,
    output: string,
    caps: TranscodeCaps = {},
    options: ConvertOptions = {},
  ): Promise<VideoProbe> {
    const file = resolve(input);
    const deadline = Date.now() + (options.timeoutMs ?? this.config.convertTimeoutMs);
    const source = options.probe ?? (await this.probeFile(file, { checkIntegrity: false }, deadline));
    const { width, height } = fitWithin(source.width, source.height, caps);
    const audioBitrate = Math.min(
      options.audioBitrate ?? DEFAULT_AUDIO_BITRATE,
      caps.maxBitrate ? Math.max(32_000, Math.floor(caps.maxBitrate / 8)) : Infinity,
    );
    const threads = String(this.config.threads);
    // A frame rate above the cap is dropped first, so the scaler and the encoder see only the frames kept.
    const fps =
      caps.maxFrameRate && source.frameRate !== null && source.frameRate > caps.maxFrameRate
        ? `fps=${caps.maxFrameRate},`
        : '';
    const args = [
      ...this.ffmpegCommon(),
      // Decoding threads too (not only the encoder's): each frame thread holds frames of its own.
      '-threads',
      threads,
      ...inputArgs(source.container, file),
      '-map',
      '0:V:0',
      ...(source.audioCodec ? ['-map', '0:a:0'] : []),
      '-map_metadata',
      '-1',
      '-map_chapters',
      '-1',
      '-filter_threads',
      threads,
      '-vf',
      `${fps}scale=${width}:${height}:flags=bicubic,setsar=1,format=yuv420p`,
      '-c:v',
      'libx264',
      '-preset',
      this.config.x264Preset,
      '-crf',
      String(X264_CRF),
      '-profile:v',
      'high',
      '-pix_fmt',
      'yuv420p',
    ];
    if (fps) args.push('-r', String(caps.maxFrameRate));
    if (caps.maxBitrate) {
      // Room for the audio, the container and the encoder's overshoot; the rate buffer holds one second.
      const videoBitrate = Math.max(
        100_000,
        Math.floor(caps.maxBitrate * 0.9 - (source.audioCodec ? audioBitrate : 0)),
      );
      args.push('-maxrate', String(videoBitrate), '-bufsize', String(videoBitrate));
    }
    if (source.audioCodec) {
      args.push('-c:a', 'aac', '-b:a', String(audioBitrate));
      if ((source.audioChannels ?? 2) > 2) args.push('-ac', '2');
    } else {
      args.push('-an');
    }
    args.push('-sn', '-dn', '-threads', threads, '-movflags', '+faststart', '-f', 'mp4');
    const result = await this.convert(args, output, deadline, options.signal);
    if (
      result.videoCodec !== 'h264' ||
      result.faststart !== true ||
      (source.audioCodec && result.audioCodec !== 'aac')
    ) {
      throw new VideoConversionError(
        `the output is ${result.videoCodec}/${result.audioCodec ?? 'silent'} (faststart: ${result.faststart}), not H.264/AAC with its index first`,
      );
    }
    return result;
  }

  /**
   * Moves the index (moov) of an MP4/MOV before its media data without re-encoding (`-c copy
   * -movflags +faststart`): every track is kept as it is, rotation included. Returns the probe of the result.
   */
  async remux(input: string, output: string, options: ConvertOptions = {}): Promise<VideoProbe> {
    const file = resolve(input);
    const deadline = Date.now() + (options.timeoutMs ?? this.config.convertTimeoutMs);
    const source = options.probe ?? (await this.probeFile(file, { checkIntegrity: false }, deadline));
    if (source.container === 'webm') {
      throw new VideoConversionError('only MP4 and QuickTime files have an index to move; this is WebM');
    }
    const args = [
      ...this.ffmpegCommon(),
      ...inputArgs(source.container, file),
      '-map',
      '0:V',
      '-map',
      '0:a?',
      '-c',
      'copy',
      '-map_metadata',
      '0',
      '-movflags',
      '+faststart',
      '-f',
      MUXER[source.container],
    ];
    const result = await this.convert(args, output, deadline, options.signal);
    if (result.faststart !== true) throw new VideoConversionError('the index is still after the media data');
    return result;
  }

  // ---------------------------------------------------------------------------------------------

  private async readTools(): Promise<VideoToolsStatus> {
    const version = async (binary: string): Promise<{ version: string | null; problem: string | null }> => {
      try {
        const r = await runTool(binary, ['-hide_banner', '-version'], {
          timeoutMs: VERSION_TIMEOUT_MS,
          maxStdoutBytes: 64 * 1024,
        });
        if (r.code !== 0) return { version: null, problem: `${binary} -version exited with code ${r.code}` };
        return { version: r.stdout.toString('utf8').split('\n', 1)[0].trim(), problem: null };
      } catch (err) {
        return { version: null, problem: (err as Error).message };
      }
    };
    const [ffprobe, ffmpeg] = await Promise.all([version(this.config.ffprobePath), version(this.config.ffmpegPath)]);
    return {
      available: ffprobe.problem === null && ffmpeg.problem === null,
      ffprobe: { path: this.config.ffprobePath, version: ffprobe.version },
      ffmpeg: { path: this.config.ffmpegPath, version: ffmpeg.version },
      problem: ffprobe.problem ?? ffmpeg.problem,
    };
  }

  private async probeFile(file: string, options: ProbeOptions, deadline: number): Promise<VideoProbe> {
    const header = await this.probeHeader(file, options, deadline);
    if (header.duration !== null && options.checkIntegrity === false) {
      return this.withinBounds(header.probe(header.duration));
    }
    return this.withinBounds(header.probe(await this.probeEnd(file, header, deadline, options.signal)));
  }

  /**
   * Refuses frames above VIDEO_MAX_PIXELS or VIDEO_MAX_DIMENSION (coded or as displayed), whose every
   * decoded frame costs memory and time in proportion: read from the header, before any frame is decoded.
   */
  private withinBounds(probe: VideoProbe): VideoProbe {
    const bounds = { maxPixels: this.config.maxPixels, maxDimension: this.config.maxDimension };
    const width = Math.max(probe.width, probe.codedWidth);
    const height = Math.max(probe.height, probe.codedHeight);
    const pixels = Math.max(probe.width * probe.height, probe.codedWidth * probe.codedHeight);
    if (pixels > bounds.maxPixels || width > bounds.maxDimension || height > bounds.maxDimension) {
      throw new VideoTooLargeError(probe.width, probe.height, bounds);
    }
    return probe;
  }

  /**
   * Options of every ffmpeg run: quiet, no stdin, and no single allocation above what a frame within
   * the bounds needs (8 bytes a pixel: four 16-bit channels, packed), so a stream whose frames grow past
   * what its header said fails instead of taking the memory.
   */
  private ffmpegCommon(): string[] {
    const maxAlloc = Math.max(64 * 1024 * 1024, this.config.maxPixels * 8);
    return ['-hide_banner', '-loglevel', 'error', '-nostdin', '-y', '-max_alloc', String(maxAlloc)];
  }

  /**
   * ffprobe's largest single allocation: 4 bytes a pixel of the largest frame taken (a plane of any
   * depth up to 16 bits). ffprobe decodes a frame to fill in what the header leaves out; a frame above
   * the bounds then fails to decode in well under a second, while the sizes, read from the header, are
   * still reported, and the bounds refuse the file.
   */
  private probeMaxAlloc(): number {
    return Math.max(16 * 1024 * 1024, this.config.maxPixels * 4);
  }

  /** What ffprobe reads from the header: the streams, and the duration the container declares (null if none). */
  private async probeHeader(file: string, options: ProbeOptions, deadline: number) {
    const { size } = await stat(file);
    const head = await readHead(file);
    const container = containerOf(head, options.declaredType);
    let layout: BoxLayout | null = null;
    if (container !== 'webm') {
      layout = await readBoxLayout(file);
      checkLayout(layout);
    }
    const json = await this.ffprobeJson(inputArgs(container, file), layout, deadline, options.signal);
    const facts = { container, sizeBytes: size, faststart: layout ? layout.faststart : null };
    return {
      json,
      container,
      duration: declaredDurationSeconds(json),
      probe: (duration: number | null): VideoProbe => toVideoProbe(json, facts, duration),
    };
  }

  /**
   * Reads the packets of the last seconds (all of them when the container declares no duration, as a
   * WebM recorded live) and returns the duration the media data really has; throws when it stops
   * before the declared end.
   */
  private async probeEnd(
    file: string,
    header: { json: FfprobeJson; container: VideoContainer; duration: number | null },
    deadline: number,
    signal: AbortSignal | undefined,
  ): Promise<number | null> {
    const { json, container, duration } = header;
    const start = parseNumber(json.format?.start_time) ?? 0;
    const from = duration === null ? null : Math.max(0, start + duration - TAIL_SECONDS);
    const args = ['-v', 'error', '-hide_banner'];
    if (from !== null) args.push('-read_intervals', `${from.toFixed(3)}%`);
    args.push(...packetArgs(), ...inputArgs(container, file));
    const tracker = new PacketEndTracker();
    const result = await runTool(this.config.ffprobePath, args, {
      timeoutMs: remaining(deadline),
      onStdout: (chunk) => tracker.push(chunk),
      signal,
    });
    tracker.finish();
    return checkMediaEnd(duration, start, tracker, result);
  }

  /**
   * One pass over the stream: ffprobe reads the header from its stdin (and stops when it knows
   * enough), the box walk (MP4/MOV) or a second ffprobe listing every packet (WebM) sees every byte.
   */
  private async probeStream(source: Readable, options: ProbeOptions, timeoutMs: number): Promise<VideoProbe> {
    const deadline = Date.now() + timeoutMs;
    const timer = setTimeout(
      () => source.destroy(new VideoToolTimeoutError('ffprobe', timeoutMs, undefined)),
      timeoutMs,
    );
    const onAbort = () =>
      source.destroy(options.signal?.reason instanceof Error ? options.signal.reason : new Error('aborted'));
    options.signal?.addEventListener('abort', onAbort, { once: true });
    const children: { kill(): void }[] = [];
    try {
      let head = Buffer.alloc(0);
      let size = 0;
      let started: {
        container: VideoContainer;
        meta: ToolProcess;
        packets: ToolProcess | null;
        tracker: PacketEndTracker | null;
        boxes: BoxLayoutScanner | null;
      } | null = null;
      const start = (): NonNullable<typeof started> => {
        const container = containerOf(head, options.declaredType);
        const input = inputArgs(container, 'pipe:0');
        const meta = startTool(this.config.ffprobePath, [...probeJsonArgs(this.probeMaxAlloc()), ...input], {
          timeoutMs: remaining(deadline),
          maxStdoutBytes: MAX_PROBE_JSON_BYTES,
          stdin: true,
          signal: options.signal,
        });
        children.push(meta);
        // Awaited below; a failure before then (the stream broke) must not go unhandled meanwhile.
        meta.done.catch(() => undefined);
        let packets: ToolProcess | null = null;
        let tracker: PacketEndTracker | null = null;
        if (container === 'webm') {
          const t = new PacketEndTracker();
          tracker = t;
          packets = startTool(this.config.ffprobePath, ['-v', 'error', '-hide_banner', ...packetArgs(), ...input], {
            timeoutMs: remaining(deadline),
            onStdout: (chunk) => t.push(chunk),
            stdin: true,
            signal: options.signal,
          });
          children.push(packets);
          packets.done.catch(() => undefined);
        }
        return { container, meta, packets, tracker, boxes: container === 'webm' ? null : new BoxLayoutScanner() };
      };
      const feed = async (chunk: Buffer) => {
        const s = started!;
        s.boxes?.push(chunk);
        await Promise.all([writeTo(s.meta.stdin, chunk), writeTo(s.packets?.stdin ?? null, chunk)]);
      };

      for await (const data of source) {
        const chunk = Buffer.isBuffer(data) ? data : Buffer.from(data as string);
        size += chunk.length;
        if (!started) {
          head = Buffer.concat([head, chunk]);
          if (head.length < MIME_SNIFF_BYTES) continue;
          started = start();
          await feed(head);
        } else {
          await feed(chunk);
        }
      }
      started ??= start();
      if (size > 0 && size < MIME_SNIFF_BYTES) await feed(head);
      started.meta.stdin?.end();
      started.packets?.stdin?.end();

      const layout = started.boxes?.finish() ?? null;
      if (layout) checkLayout(layout);
      const metaResult = await started.meta.done;
      const json = parseProbeJson(metaResult, layout);
      let duration = declaredDurationSeconds(json);
      if (started.packets && started.tracker) {
        const result = await started.packets.done;
        started.tracker.finish();
        if (duration === null || options.checkIntegrity !== false) {
          duration = checkMediaEnd(duration, parseNumber(json.format?.start_time) ?? 0, started.tracker, result);
        }
      }
      return this.withinBounds(
        toVideoProbe(
          json,
          { container: started.container, sizeBytes: size, faststart: layout ? layout.faststart : null },
          duration,
        ),
      );
    } catch (err) {
      for (const child of children) child.kill();
      source.destroy();
      throw err;
    } finally {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
    }
  }

  private async ffprobeJson(
    input: string[],
    layout: BoxLayout | null,
    deadline: number,
    signal?: AbortSignal,
  ): Promise<FfprobeJson> {
    const result = await runTool(this.config.ffprobePath, [...probeJsonArgs(this.probeMaxAlloc()), ...input], {
      timeoutMs: remaining(deadline),
      maxStdoutBytes: MAX_PROBE_JSON_BYTES,
      signal,
    });
    return parseProbeJson(result, layout);
  }

  /** Runs one conversion into a temporary file beside `output`, renamed into place once probed. */
  private async convert(args: string[], output: string, deadline: number, signal?: AbortSignal): Promise<VideoProbe> {
    const target = resolve(output);
    const temp = join(dirname(target), `.${basename(target)}.${randomBytes(6).toString('hex')}.part`);
    try {
      const result = await runTool(this.config.ffmpegPath, [...args, `file:${temp}`], {
        timeoutMs: remaining(deadline),
        maxStdoutBytes: 64 * 1024,
        signal,
      });
      if (result.code !== 0) {
        throw new VideoConversionError(`the encoder ${exitOf(result)}`, toolOutput('ffmpeg', result));
      }
      const probe = await this.probeFile(temp, { checkIntegrity: false }, deadline + this.config.probeTimeoutMs);
      await rename(temp, target);
      return probe;
    } catch (err) {
      await rm(temp, { force: true });
      if (err instanceof VideoError && err.inputProblem) {
        throw new VideoConversionError(`the converted file is not a valid video: ${err.message}`, err.toolOutput);
      }
      throw err;
    }
  }
}

/** ffprobe's description of the streams; `maxAlloc` bounds the frames it decodes to fill it in. */
function probeJsonArgs(maxAlloc: number): string[] {
  return [
    '-v',
    'error',
    '-hide_banner',
    '-max_alloc',
    String(maxAlloc),
    '-show_format',
    '-show_streams',
    '-of',
    'json',
  ];
}

function packetArgs(): string[] {
  return ['-show_entries', 'packet=stream_index,pts_time,duration_time', '-of', 'csv=p=0'];
}

/** Input options: only files and pipes, and the demuxer of the sniffed container. */
function inputArgs(container: VideoContainer, source: string): string[] {
  const url = source === 'pipe:0' ? source : `file:${source}`;
  return ['-protocol_whitelist', 'file,pipe', '-f', DEMUXER[container], '-i', url];
}

async function readHead(file: string): Promise<Buffer> {
  const handle = await open(file, 'r');
  try {
    const buf = Buffer.alloc(MIME_SNIFF_BYTES);
    const { bytesRead } = await handle.read(buf, 0, MIME_SNIFF_BYTES, 0);
    return buf.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/** The container the first bytes say, checked against the declared type. */
function containerOf(head: Buffer, declaredType: string | undefined): VideoContainer {
  const sniffed = sniffMimeType(head);
  const container = (Object.keys(VIDEO_MIME_TYPES) as VideoContainer[]).find((c) => VIDEO_MIME_TYPES[c] === sniffed);
  if (!container || !sniffed) throw new VideoNotAVideoError(sniffed, declaredType ?? null);
  if (declaredType !== undefined && normalizeMimeType(declaredType) !== sniffed) {
    throw new VideoTypeMismatchError(declaredType, sniffed);
  }
  return container;
}

function checkLayout(layout: BoxLayout): void {
  const t = layout.truncated;
  if (t) {
    const missing = t.declaredEnd - t.fileEnd;
    const what =
      t.type === 'mdat'
        ? 'its media data (mdat)'
        : t.type === 'moov'
          ? 'its index (moov)'
          : t.type
            ? `its "${t.type.replace(/[^\x20-\x7e]/g, '?')}" box`
            : 'a box header';
    throw new VideoTruncatedError(
      `the file ends after ${t.fileEnd} bytes, inside ${what}, which needs ${missing} more bytes`,
    );
  }
  if (layout.malformedAt !== null) {
    throw new VideoUndecodableError(`the box at byte ${layout.malformedAt} has an impossible size`);
  }
}

/** ffprobe's JSON, or the error its failure means (`layout`: the box walk of an MP4/MOV, which ran first). */
function parseProbeJson(result: ToolResult, layout: BoxLayout | null): FfprobeJson {
  if (result.code !== 0) {
    const stderr = result.stderr;
    if (/moov atom not found/i.test(stderr) && layout !== null && layout.moovAt !== null) {
      throw new VideoUndecodableError('its index (moov) is there but cannot be read', toolOutput('ffprobe', result));
    }
    if (/moov atom not found/i.test(stderr)) {
      throw new VideoTruncatedError(
        'its index (moov) is missing, as when an upload or a recording stops early',
        toolOutput('ffprobe', result),
      );
    }
    throw new VideoUndecodableError(
      'the file is truncated, damaged or not a video container',
      toolOutput('ffprobe', result),
    );
  }
  try {
    return JSON.parse(result.stdout.toString('utf8')) as FfprobeJson;
  } catch {
    throw new VideoUndecodableError('ffprobe printed no description of it');
  }
}

/**
 * Compares where the packets end with the duration the container declares; returns the duration to
 * report (the measured one when none is declared).
 */
function checkMediaEnd(
  declared: number | null,
  start: number,
  tracker: PacketEndTracker,
  result: ToolResult,
): number | null {
  if (result.code !== 0 && tracker.packets === 0) {
    throw new VideoUndecodableError(
      'its media data cannot be read: the file is truncated or damaged',
      toolOutput('ffprobe', result),
    );
  }
  const measured = tracker.end === null ? null : tracker.end - start;
  if (TRUNCATION_MESSAGES.test(result.stderr)) {
    const at = measured !== null ? ` after ${fmtSeconds(measured)}` : '';
    const of = declared !== null ? ` of the ${fmtSeconds(declared)} it declares` : '';
    throw new VideoTruncatedError(`its media data stops${at}${of}`, toolOutput('ffprobe', result));
  }
  if (declared === null) return measured;
  if (measured === null) {
    throw new VideoTruncatedError(`no media data was found near its end (at ${fmtSeconds(declared)})`);
  }
  if (measured < declared - Math.max(END_TOLERANCE_SECONDS, declared * END_TOLERANCE_SHARE)) {
    throw new VideoTruncatedError(
      `its media data stops after ${fmtSeconds(measured)} of the ${fmtSeconds(declared)} it declares`,
    );
  }
  return declared;
}

/** Fits a size within the caps' long and short sides, keeping its shape, in even numbers (yuv420p). */
export function fitWithin(width: number, height: number, caps: TranscodeCaps): { width: number; height: number } {
  const long = Math.max(width, height);
  const short = Math.min(width, height);
  const scale = Math.min(
    1,
    caps.maxLongSide ? caps.maxLongSide / long : 1,
    caps.maxShortSide ? caps.maxShortSide / short : 1,
  );
  const even = (n: number) => Math.max(2, Math.floor((n * scale) / 2) * 2);
  return { width: even(width), height: even(height) };
}

/** Writes a chunk and waits until the pipe took it; a closed pipe (its reader exited) takes nothing. */
function writeTo(stream: Writable | null, chunk: Buffer): Promise<void> {
  if (!stream || stream.destroyed || stream.writableEnded) return Promise.resolve();
  return new Promise((resolve) => {
    stream.write(chunk, () => resolve());
  });
}

function remaining(deadline: number): number {
  return Math.max(1, deadline - Date.now());
}

/** How a tool ended, for a message: its exit code or the signal that killed it (never what it printed). */
function exitOf(result: ToolResult): string {
  return result.signal ? `was killed by ${result.signal}` : `stopped with exit code ${result.code}`;
}

/**
 * What a tool said, for the log (VideoError.toolOutput): its exit and the end of its stderr. Never for
 * a message: ffprobe and ffmpeg name the file they read, a path on the server.
 */
function toolOutput(tool: string, result: ToolResult): string {
  const said = lastLines(result.stderr, 5, 2000);
  return `${tool} ${exitOf(result)}${said ? `: ${said}` : ''}`;
}
