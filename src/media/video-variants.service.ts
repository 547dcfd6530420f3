import { createHash } from 'node:crypto';
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

/**
 * Videos converted for networks (docs/adr/0033): once per item and requirement set, in a job of the
 * media queue (never in a request or a publish attempt), kept with the item as a variant named after
 * the conversion and its caps (`mp4` + 8 hex). `remux` when only the index is at the end, `transcode`
 * (H.264/AAC MP4) otherwise; MEDIA_VIDEO_TRANSCODE=false makes none, and then what needed one is refused.
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
  async videoFor(mediaId: string, requirements: VideoRequirements): Promise<VideoForNetwork> {
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
    await this.queue.enqueueConversion({ mediaId, variant, conversion: needs.conversion, caps });
    return { state: 'pending', message: `the video is being converted (${needs.fixes.join('; ')})` };
  }

  /**
   * The job: converts in a temporary directory (one of the process's video slots, ffmpeg bounded by
   * VIDEO_CONVERT_TIMEOUT_SECONDS), streams the result to storage, then records it, unless the item
   * went away meanwhile (then the bytes are removed again).
   */
  async convert(job: ConvertVideoJobData): Promise<void> {
    if (await this.variants.find(job.mediaId, job.variant)) return;
    await this.slots.run(async () => {
      const item = await this.items.findById(job.mediaId);
      if (!item || item.status !== 'ready') return;
      const dir = await mkdtemp(join(tmpdir(), 'sps-video-'));
      const started = Date.now();
      try {
        let source = this.storage.localPath?.(item.id);
        if (!source) {
          source = join(dir, 'source');
          await pipeline(this.storage.open(item.id), createWriteStream(source));
        }
        const output = join(dir, 'output.mp4');
        const result =
          job.conversion === 'remux'
            ? await this.toolkit.remux(source, output)
            : await this.toolkit.transcode(source, output, job.caps);
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
        await rm(dir, { recursive: true, force: true });
      }
    });
  }
}
