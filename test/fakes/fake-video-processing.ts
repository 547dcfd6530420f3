import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FakeHold } from './fake-http-server';

/** What ffprobe reads in bytes a fake received: what the network would see. */
export interface ReceivedProbe {
  /** ffprobe's format name (`mov,mp4,m4a,3gp,3g2,mj2`, `matroska,webm`). */
  container: string;
  videoCodec: string | null;
  audioCodec: string | null;
  durationSeconds: number | null;
}

/** Probes bytes with ffprobe (test-side, like a network's own pipeline); null when they are no media. */
export function probeBytes(bytes: Buffer): ReceivedProbe | null {
  const dir = mkdtempSync(join(tmpdir(), 'fake-video-'));
  try {
    const file = join(dir, 'received');
    writeFileSync(file, bytes);
    const out = spawnSync('ffprobe', ['-v', 'error', '-print_format', 'json', '-show_format', '-show_streams', file], {
      encoding: 'utf8',
    });
    if (out.status !== 0) return null;
    const json = JSON.parse(out.stdout) as {
      format?: { format_name?: string; duration?: string };
      streams?: Array<{ codec_type?: string; codec_name?: string }>;
    };
    const stream = (type: string) => json.streams?.find((s) => s.codec_type === type)?.codec_name ?? null;
    const duration = Number(json.format?.duration);
    return {
      container: json.format?.format_name ?? '',
      videoCodec: stream('video'),
      audioCodec: stream('audio'),
      durationSeconds: Number.isFinite(duration) ? duration : null,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export type FakeVideoState = 'processing' | 'ready' | 'failed';

/** A video a fake network received, as its processing pipeline holds it. */
export interface FakeVideo {
  id: string;
  bytes: Buffer;
  mimeType: string;
  probe: ReceivedProbe | null;
  /** Status reads so far. */
  polls: number;
  state: FakeVideoState;
  /** Why processing failed (the network's words), when it did. */
  error: string | null;
}

export interface FakeVideoOptions {
  /** Status reads that still answer "processing" before the video is ready. Default 2. */
  pollsBeforeReady?: number;
  /** Longest video the network processes, in seconds; longer ones fail processing. */
  maxDurationSeconds?: number;
}

/**
 * The processing side of a fake network's video API: received videos (bytes kept, probed with
 * ffprobe), a state per video advanced by status reads (several "processing" answers, then ready),
 * failures on demand or for a video too long, and counters for "uploaded once" assertions.
 */
export class FakeVideoProcessing {
  readonly videos: FakeVideo[] = [];
  /** Status reads answered, over all videos. */
  statusReads = 0;
  pollsBeforeReady: number;
  private failNext: string[] = [];
  private stuck = false;
  private holds: Array<{ arrive: () => void; released: Promise<void> }> = [];

  constructor(
    private readonly opts: FakeVideoOptions = {},
    private readonly idOf: () => string = () => String(this.videos.length + 1),
  ) {
    this.pollsBeforeReady = opts.pollsBeforeReady ?? 2;
  }

  /** Videos received: one per upload the network took in full. */
  get uploads(): number {
    return this.videos.length;
  }

  /** The next video received fails processing with `reason` (after its "processing" polls). */
  failNextVideo(reason = 'Unsupported video format'): void {
    this.failNext.push(reason);
  }

  /** From now on videos never finish processing (until `unstick`). */
  stick(): void {
    this.stuck = true;
  }

  unstick(): void {
    this.stuck = false;
  }

  /**
   * Holds the next status read open until `release()` (the upload is done and the network's id known
   * to the client): a client killed meanwhile has to start over from what it saved.
   */
  holdNextStatus(): FakeHold {
    let arrive!: () => void;
    let release!: () => void;
    const arrived = new Promise<void>((r) => (arrive = r));
    const released = new Promise<void>((r) => (release = r));
    this.holds.push({ arrive, released });
    return { arrived, release };
  }

  /** For status handlers: waits here when a hold was asked for (call before `poll`). */
  async beforeStatus(): Promise<void> {
    const hold = this.holds.shift();
    if (!hold) return;
    hold.arrive();
    await hold.released;
  }

  reset(): void {
    this.videos.length = 0;
    this.statusReads = 0;
    this.failNext = [];
    this.stuck = false;
    this.pollsBeforeReady = this.opts.pollsBeforeReady ?? 2;
  }

  /** Takes a whole video into processing; returns it (state `processing`). */
  receive(bytes: Buffer, mimeType: string, id = this.idOf()): FakeVideo {
    const probe = probeBytes(bytes);
    let error: string | null = null;
    if (!probe || !probe.videoCodec) error = 'The file is not a video the network can decode';
    else if (
      this.opts.maxDurationSeconds !== undefined &&
      probe.durationSeconds !== null &&
      probe.durationSeconds > this.opts.maxDurationSeconds
    ) {
      error = `The video is ${probe.durationSeconds.toFixed(1)} s long; the longest taken is ${this.opts.maxDurationSeconds} s`;
    } else if (this.failNext.length > 0) error = this.failNext.shift()!;
    const video: FakeVideo = { id, bytes, mimeType, probe, polls: 0, state: 'processing', error };
    this.videos.push(video);
    return video;
  }

  find(id: string): FakeVideo | undefined {
    return this.videos.find((v) => v.id === id);
  }

  /** One status read: advances the video's processing and returns it. */
  poll(video: FakeVideo): FakeVideo {
    this.statusReads += 1;
    if (video.state !== 'processing') return video;
    video.polls += 1;
    if (video.polls <= this.pollsBeforeReady || this.stuck) return video;
    video.state = video.error ? 'failed' : 'ready';
    return video;
  }
}
