import { createHash } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { ConfigType } from '@nestjs/config';
import { AppError } from '../common/errors';
import { isUuid } from '../common/validators';
import { mediaConfig } from '../config/media.config';
import { Transactions } from '../database/transactions';
import { EventsService } from '../events/events.service';
import { MediaDto } from './dto/media.dto';
import {
  ImageCheckError,
  PngStructureCheck,
  checkImageFile,
  checkPixelCount,
  withTemporaryCopy,
} from './image-check.util';
import { ImageSize, readImageSizeFromStream } from './image-size.util';
import { ImageSlots } from './image-slots';
import { MediaItem } from './media-item.entity';
import { MediaItemsStore } from './media-items.store';
import { MIME_SNIFF_BYTES, mimeMatches, sniffMimeType } from './media-type.util';
import { MimeMismatchError } from './mime-sniffer';
import { MEDIA_STORAGE, MediaStorage, MissingPartsError } from './storage/media-storage.interface';
import { ReceivingStatus, assertReceiving } from './upload-state';
import { MediaVariantsStore } from './media-variants.store';
import { MediaContentService } from './media-content.service';
import { POSTER_VARIANT, VideoSlots, isVideoType, probeColumns } from './video-media.util';
import { VideoToolkit } from './video/video-toolkit.service';
import { VideoError } from './video/video.errors';
import type { VideoPoster, VideoProbe } from './video/video.interface';

/** How many missing indexes a 409 message names before it summarizes the rest. */
const MISSING_LISTED = 50;

function listMissing(missing: readonly number[]): string {
  const shown = missing.slice(0, MISSING_LISTED).join(', ');
  return missing.length > MISSING_LISTED ? `${shown} and ${missing.length - MISSING_LISTED} more` : shown;
}

/**
 * Step 3 of an upload: joins the chunks and verifies the file (size, declared SHA-256, real type, and that
 * an image decodes within MEDIA_MAX_IMAGE_PIXELS), under the item's row lock; `ready`, or `failed` with the
 * reason and its bytes removed.
 */
@Injectable()
export class MediaFinalizeService {
  private readonly logger = new Logger(MediaFinalizeService.name);

  constructor(
    private readonly items: MediaItemsStore,
    private readonly transactions: Transactions,
    @Inject(MEDIA_STORAGE) private readonly storage: MediaStorage,
    @Inject(mediaConfig.KEY) private readonly cfg: ConfigType<typeof mediaConfig>,
    private readonly events: EventsService,
    private readonly slots: ImageSlots,
    private readonly videoSlots: VideoSlots,
    private readonly video: VideoToolkit,
    private readonly variants: MediaVariantsStore,
    private readonly content: MediaContentService,
  ) {}

  /**
   * Step 3: joins the chunks and verifies size, SHA-256 (when declared), real type, and that an image
   * decodes within MEDIA_MAX_IMAGE_PIXELS. Runs under the row lock, so concurrent calls finalize once; a
   * `ready` item is returned unchanged. A verification failure marks the item `failed` (with the reason)
   * and removes its bytes. The end of a background download (`via: 'processing'`) records `media.ready`
   * or `media.failed` with it. An image takes one of the process's image slots first (before the
   * transaction, so waiting for one holds no connection).
   */
  async finalize(workspaceId: string, mediaId: string, via: ReceivingStatus = 'uploading'): Promise<MediaItem> {
    const peek = isUuid(mediaId) ? await this.items.find(workspaceId, mediaId) : null;
    if (peek?.status === via && peek.mimeType.startsWith('image/')) {
      return this.slots.run(() => this.finalizeLocked(workspaceId, mediaId, via));
    }
    if (peek?.status === via && isVideoType(peek.mimeType)) {
      return this.videoSlots.run(() => this.finalizeLocked(workspaceId, mediaId, via));
    }
    return this.finalizeLocked(workspaceId, mediaId, via);
  }

  private async finalizeLocked(workspaceId: string, mediaId: string, via: ReceivingStatus): Promise<MediaItem> {
    const outcome = await this.transactions.run<{ item: MediaItem } | { problem: AppError }>(async (em) => {
      const item = isUuid(mediaId) ? await this.items.lock(em, mediaId, workspaceId) : null;
      if (!item) throw AppError.notFound('Media');
      if (item.status === 'ready') return { item };
      assertReceiving(item, via);

      const received = new Set(item.receivedChunks);
      const missing: number[] = [];
      for (let i = 0; i < item.totalChunks; i++) if (!received.has(i)) missing.push(i);
      if (missing.length > 0) throw this.missingChunks(missing);

      let digest: { size: number; sha256: string };
      try {
        digest = await this.storage.complete(item.id, item.totalChunks);
      } catch (err) {
        if (!(err instanceof MissingPartsError)) throw err;
        // The database said received but storage lost them (disk trouble, a crash): forget them, so GET
        // tells the client what to send again.
        const lost = new Set(err.missing);
        await this.items.update(em, item.id, { receivedChunks: item.receivedChunks.filter((i) => !lost.has(i)) });
        return { problem: this.missingChunks(err.missing) };
      }

      const checked = await this.inspect(item, digest);
      if ('problem' in checked) {
        await this.storage.remove(item.id);
        if (via === 'processing') {
          const failed = await this.items.markFailed(em, item.id, checked.problem.code, checked.problem.message);
          await this.events.record(em, { type: 'media.failed', workspaceId, data: MediaDto.from(failed) });
        } else
          await this.items.update(em, item.id, {
            status: 'failed',
            receivedChunks: [],
            expiresAt: null,
            errorCode: checked.problem.code,
            errorMessage: checked.problem.message,
          });
        return checked;
      }
      const { dims, video } = checked;
      if (video) {
        // The poster's bytes before its row: a failure leaves the item `uploading`, and finalizing again
        // overwrites them.
        await this.storage.writeVariant(item.id, POSTER_VARIANT, video.poster.data);
        await this.variants.insert(em, {
          mediaId: item.id,
          variant: POSTER_VARIANT,
          mimeType: 'image/jpeg',
          size: video.poster.data.length,
          width: video.poster.width,
          height: video.poster.height,
          durationMs: null,
          sha256: createHash('sha256').update(video.poster.data).digest('hex'),
        });
      }
      await this.items.update(em, item.id, {
        status: 'ready',
        sha256: digest.sha256,
        width: dims?.width ?? null,
        height: dims?.height ?? null,
        ...(video ? probeColumns(video.probe) : {}),
        expiresAt: null,
        importClaimedUntil: null,
        finalizedAt: () => 'now()',
      });
      const ready = await this.items.reload(em, item.id);
      if (via === 'processing') {
        await this.events.record(em, {
          type: 'media.ready',
          workspaceId,
          data: MediaDto.from(ready, this.content.urlsOf(ready)),
        });
      }
      return { item: ready };
    });
    if ('problem' in outcome) throw outcome.problem;
    return outcome.item;
  }

  private missingChunks(missing: readonly number[]): AppError {
    return AppError.conflict(
      `Upload is incomplete: missing chunk${missing.length === 1 ? '' : 's'} ${listMissing(missing)}`,
    );
  }

  /**
   * Checks the joined object: size, declared digest, magic bytes, and for images their dimensions
   * within MEDIA_MAX_IMAGE_PIXELS and a complete decode (422 `UNPROCESSABLE_MEDIA` otherwise).
   * Returns the first problem, or the dimensions (null for videos).
   */
  private async inspect(
    item: MediaItem,
    digest: { size: number; sha256: string },
  ): Promise<{ problem: AppError } | { dims: ImageSize | null; video?: { probe: VideoProbe; poster: VideoPoster } }> {
    if (digest.size !== item.size) {
      return { problem: AppError.conflict(`The chunks add up to ${digest.size} bytes, not the declared ${item.size}`) };
    }
    if (item.sha256 && digest.sha256 !== item.sha256) {
      const message = `does not match the uploaded bytes (${digest.sha256})`;
      return { problem: AppError.validation(`sha256: ${message}`, [{ field: 'sha256', message }]) };
    }
    const sniffed = sniffMimeType(await this.storage.readHead(item.id, MIME_SNIFF_BYTES));
    if (!mimeMatches(item.mimeType, sniffed)) {
      return { problem: new AppError('UNSUPPORTED_MEDIA_TYPE', new MimeMismatchError(item.mimeType, sniffed).message) };
    }
    if (isVideoType(item.mimeType)) return this.inspectVideo(item);
    if (!item.mimeType.startsWith('image/')) return { dims: null };
    const dims = await readImageSizeFromStream(this.storage.open(item.id), item.mimeType);
    if (!dims) {
      const message = `The image's dimensions cannot be read: not a valid ${item.mimeType}`;
      return { problem: new AppError('UNPROCESSABLE_MEDIA', message) };
    }
    try {
      await this.checkImage(item, dims);
    } catch (err) {
      if (!(err instanceof ImageCheckError)) throw err;
      return { problem: new AppError('UNPROCESSABLE_MEDIA', err.message) };
    }
    return { dims };
  }

  /**
   * Probes a video with ffprobe and takes its poster frame with ffmpeg (child processes, bounded by
   * VIDEO_PROBE_TIMEOUT_SECONDS): the file in place on local disk, a temporary copy otherwise. Bytes at
   * fault are a 422 `UNPROCESSABLE_MEDIA` problem naming what is wrong; the server at fault (ffmpeg
   * missing, too slow) is a 503 thrown, so the item stays `uploading` and finalize can be repeated.
   */
  private async inspectVideo(
    item: MediaItem,
  ): Promise<{ problem: AppError } | { dims: null; video: { probe: VideoProbe; poster: VideoPoster } }> {
    const work = (path: string) => this.video.probeWithPoster(path, { declaredType: item.mimeType });
    try {
      const local = this.storage.localPath?.(item.id);
      const video = local ? await work(local) : await withTemporaryCopy(this.storage.open(item.id), [], work);
      return { dims: null, video };
    } catch (err) {
      if (!(err instanceof VideoError)) throw err;
      // The tool's own words (server paths included) go to the log; the client gets the message.
      this.logger.log({
        msg: 'A video failed its check',
        mediaId: item.id,
        reason: err.reason,
        err: err.message,
        ...(err.toolOutput ? { toolOutput: err.toolOutput } : {}),
      });
      if (err.inputProblem) return { problem: new AppError('UNPROCESSABLE_MEDIA', err.message) };
      throw new AppError('SERVICE_UNAVAILABLE', err.message);
    }
  }

  /** Refuses an image above the pixel limit at once; otherwise checks its file and decodes it. */
  private async checkImage(item: MediaItem, dims: ImageSize): Promise<void> {
    const maxPixels = this.cfg.maxImagePixels;
    checkPixelCount(dims, maxPixels);
    const through = item.mimeType === 'image/png' ? [new PngStructureCheck()] : [];
    await withTemporaryCopy(this.storage.open(item.id), through, (path) => checkImageFile(path, dims, maxPixels));
  }
}
