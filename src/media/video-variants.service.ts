import { createHash, randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createWriteStream } from 'node:fs';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { videoConfig, type VideoConfig } from '../config/video.config';
import { Transactions } from '../database/transactions';
import { MediaItemsStore } from './media-items.store';
import { MediaVariantsStore } from './media-variants.store';
import { ConvertVideoJobData, MediaQueue } from './media.queue';
import { MEDIA_STORAGE, MediaStorage } from './storage/media-storage.interface';
import { VideoSlots, isVideoType, probeOfItem } from './video-media.util';
import { VideoToolkit, videoNeeds } from './video/video-toolkit.service';
import { VideoError } from './video/video.errors';
import type { VideoRequirements } from './video/video.interface';
import { ProcessTicker } from '../scheduling/process-ticker';

/** What a publisher gets for "this video, as this network takes it". */
export type VideoForNetwork =
  /** Publish this: the original (`variant` null) or a converted copy kept with the item. */
  | { state: 'ready'; variant: string | null; mimeType: string; size: number }
  /** The copy is being made in a background job: ask again later. */
  | { state: 'pending'; message: string }
  /** No conversion makes it acceptable (too long, too big, ...), or conversions are off: each problem states the limit. */
  | { state: 'refused'; problems: string[] }
  /** The conversion it needs was tried and failed (ffmpeg could not make it): not tried again. */
  | { state: 'failed'; message: string };

/** Who asks for a video (a publish target) and until when it waits for a conversion. */
export interface VideoWait {
  waiter: string;
  until: Date;
}

/** How often a running conversion renews its heartbeat and asks whether it is still wanted. */
const HEARTBEAT_MS = 1_000;
/** A conversion whose heartbeat is older than this has no live run (its worker died): another may take it. */
const STALE_MS = 15_000;

/** Why a run stopped ffmpeg: no publication waits for the copy any more. */
class ConversionNotWantedError extends Error {
  constructor() {
    super('no publication waits for the conversion any more');
  }
}

/**
 * Videos converted for networks (docs/adr/0033, 0050): once per item and requirement set, in a job of the
 * media queue (never in a request or a publish attempt), kept with the item as a variant named after
 * the conversion and its caps (`mp4` + 8 hex). `remux` when only the index is at the end, `transcode`
 * (H.264/AAC MP4) otherwise; MEDIA_VIDEO_TRANSCODE=false makes none, and then what needed one is refused.
 *
 * A conversion asked for is a row of `media_video_conversions` until it ends: every ask (a poll, a
 * retry, another post, a job delivered twice) finds it there and joins it, so one ffmpeg runs per item
 * and variant. Its budget is the publications waiting for it: the run stops ffmpeg once the latest of
 * their waits is over, or once none waits any more (each target leaves when it publishes or fails),
 * and never runs past VIDEO_CONVERT_TIMEOUT_SECONDS.
 */
@Injectable()
export class VideoVariantsService {
  private readonly logger = new Logger(VideoVariantsService.name);

  constructor(
    private readonly items: MediaItemsStore,
    private readonly variants: MediaVariantsStore,
    private readonly transactions: Transactions,
    private readonly queue: MediaQueue,
    private readonly toolkit: VideoToolkit,
    private readonly slots: VideoSlots,
    @Inject(MEDIA_STORAGE) private readonly storage: MediaStorage,
    @Inject(videoConfig.KEY) private readonly cfg: VideoConfig,
  ) {}

  /** The item as the network takes it: ready (original or copy), being converted, or refused. */
  async videoFor(mediaId: string, requirements: VideoRequirements, wait?: VideoWait): Promise<VideoForNetwork> {
    const item = await this.items.findById(mediaId);
    if (!item || item.status !== 'ready' || !isVideoType(item.mimeType)) {
      return { state: 'refused', problems: [`media ${mediaId} is not a ready video`] };
    }
    const probe = probeOfItem(item);
    if (!probe) return { state: 'refused', problems: [`media ${mediaId} was not probed; upload it again`] };
    const needs = videoNeeds(probe, requirements, { allow: this.cfg.transcode ? 'transcode' : 'none' });
    if (!needs.ok) return { state: 'refused', problems: needs.problems };
    if (needs.conversion === 'none') {
      return { state: 'ready', variant: null, mimeType: item.mimeType, size: item.size };
    }
    const caps = {
      maxFrameRate: requirements.maxFrameRate,
      maxBitrate: requirements.maxBitrate,
      maxLongSide: requirements.maxLongSide,
      maxShortSide: requirements.maxShortSide,
    };
    const variant = `mp4${createHash('sha256')
      .update(JSON.stringify({ conversion: needs.conversion, caps }))
      .digest('hex')
      .slice(0, 8)}`;
    const done = await this.variants.find(mediaId, variant);
    if (done) return { state: 'ready', variant, mimeType: done.mimeType, size: done.size };
    const failed = await this.variants.findFailure(mediaId, variant);
    if (failed) {
      return {
        state: 'failed',
        message: `the video could not be converted (${needs.fixes.join('; ')}): ${failed.message}`,
      };
    }
    const { waiter, until } = wait ?? {
      waiter: 'unnamed',
      until: new Date(Date.now() + this.cfg.processingMaxWaitMs),
    };
    // A live run holds it already: this ask only joins it (its wait and its waiter).
    if (await this.variants.askConversion(mediaId, variant, waiter, until, STALE_MS)) {
      await this.queue.enqueueConversion({ mediaId, variant, conversion: needs.conversion, caps });
    }
    return { state: 'pending', message: `the video is being converted (${needs.fixes.join('; ')})` };
  }

  /** `waiter` (a publish target that published or failed) waits for no conversion any more. */
  releaseWaits(waiter: string): Promise<void> {
    return this.variants.releaseConversions(waiter);
  }

  /**
   * The job: converts in a temporary directory (one of the process's video slots, ffmpeg bounded by
   * VIDEO_CONVERT_TIMEOUT_SECONDS), streams the result to storage, then records it, unless the item
   * went away meanwhile (then the bytes are removed again).
   */
  async convert(job: ConvertVideoJobData): Promise<void> {
    if (await this.variants.find(job.mediaId, job.variant)) {
      await this.variants.endConversion(job.mediaId, job.variant, null);
      return;
    }
    await this.slots.run(async () => {
      const runner = randomBytes(8).toString('hex');
      // Taken by a live run already (a job delivered twice, a retry), or nobody asks any more: nothing to do.
      const claim = await this.variants.claimConversion(job.mediaId, job.variant, runner, STALE_MS);
      if (!claim) return;
      const item = await this.items.findById(job.mediaId);
      if (!item || item.status !== 'ready' || claim.waiters === 0 || claim.waitUntil.getTime() <= Date.now()) {
        await this.variants.endConversion(job.mediaId, job.variant, runner);
        return;
      }
      const dir = await mkdtemp(join(tmpdir(), 'sps-video-'));
      const started = Date.now();
      const stop = new AbortController();
      // Database trouble: ffmpeg goes on, bounded by VIDEO_CONVERT_TIMEOUT_SECONDS.
      const heartbeat = new ProcessTicker({
        name: 'video conversion heartbeat',
        everyMs: HEARTBEAT_MS,
        run: async () => {
          const wanted = await this.variants.beatConversion(item.id, job.variant, runner).catch(() => true);
          if (!wanted) stop.abort(new ConversionNotWantedError());
        },
      });
      heartbeat.start();
      try {
        let source = this.storage.localPath?.(item.id);
        if (!source) {
          source = join(dir, 'source');
          await pipeline(this.storage.open(item.id), createWriteStream(source));
        }
        const output = join(dir, 'output.mp4');
        const options = { signal: stop.signal };
        const result =
          job.conversion === 'remux'
            ? await this.toolkit.remux(source, output, options)
            : await this.toolkit.transcode(source, output, job.caps, options);
        if (stop.signal.aborted) throw stop.signal.reason;
        const { size } = await stat(output);
        const hash = createHash('sha256');
        for await (const chunk of createReadStream(output)) hash.update(chunk as Buffer);
        await this.storage.writeVariantFile(item.id, job.variant, output);
        const kept = await this.transactions.run(async (em) => {
          if (!(await this.items.lockForShare(em, item.id))) return false;
          await this.variants.insert(em, {
            mediaId: item.id,
            variant: job.variant,
            mimeType: result.mimeType,
            size,
            width: result.width,
            height: result.height,
            durationMs: Math.round(result.durationMs),
            sha256: hash.digest('hex'),
          });
          await this.variants.endConversion(item.id, job.variant, runner, em);
          return true;
        });
        if (!kept) await this.storage.removeVariant(item.id, job.variant);
        this.logger.log({
          msg: 'Converted a video',
          mediaId: item.id,
          variant: job.variant,
          conversion: job.conversion,
          bytes: size,
          ms: Date.now() - started,
        });
      } catch (err) {
        if (err instanceof ConversionNotWantedError) {
          // Not the file's fault: a later publication asks again and gets a new run.
          this.logger.log({
            msg: 'Video conversion stopped: no publication waits for it',
            mediaId: item.id,
            variant: job.variant,
            ms: Date.now() - started,
          });
          return;
        }
        this.logger.warn({
          msg: 'Video conversion failed',
          mediaId: item.id,
          variant: job.variant,
          err: (err as Error).message,
          ...(err instanceof VideoError && err.toolOutput ? { toolOutput: err.toolOutput } : {}),
        });
        // ffmpeg's verdict on this file is kept: publishers asking again fail at once instead of queueing
        // the same conversion at every poll. Storage or database trouble is not recorded (a later ask retries).
        if (err instanceof VideoError && err.reason !== 'unavailable') {
          await this.variants.recordFailure({
            mediaId: item.id,
            variant: job.variant,
            reason: err.reason,
            message: err.message.slice(0, 2000),
          });
        }
        throw err;
      } finally {
        await heartbeat.stop();
        await this.variants.endConversion(item.id, job.variant, runner).catch(() => undefined);
        await rm(dir, { recursive: true, force: true });
      }
    });
  }
}
