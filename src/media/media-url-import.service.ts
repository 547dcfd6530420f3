import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { ConfigType } from '@nestjs/config';
import { AppError } from '../common/errors';
import {
  OutboundHttp,
  OutboundHttpError,
  OutboundStreamResponse,
  OutboundTimeoutError,
  SsrfBlockedError,
} from '../common/http/outbound-http';
import { mediaConfig } from '../config/media.config';
import { afterCommit } from '../database/request-transaction';
import { Transactions } from '../database/transactions';
import { EventsService } from '../events/events.service';
import { MediaItem } from './media-item.entity';
import { normalizeMimeType } from './media-type.util';
import { MediaDto } from './dto/media.dto';
import { MediaFinalizeService } from './media-finalize.service';
import { MediaItemsStore } from './media-items.store';
import { MediaUploadService } from './media-upload.service';
import { MediaService } from './media.service';
import { MediaQueue } from './media.queue';
import { MEDIA_STORAGE, MediaStorage } from './storage/media-storage.interface';
import { ReceivingStatus } from './upload-state';

/** Items the sweep fails per transaction (and, times ten, queues again per run). */
const SWEEP_BATCH = 100;

/** The outbound client of URL imports: its own instance, with the download time budget. */
export const MEDIA_DOWNLOADER = Symbol('MEDIA_DOWNLOADER');

export interface UploadFromUrlInput {
  url: string;
  filename?: string;
  mimeType?: string;
  altText?: string | null;
}

/** What POST /media/upload/url comes to: the ready item (201), or the processing one a worker finishes (202). */
export interface UrlImport {
  item: MediaItem;
  /** True when the download goes on in the background (answer 202). */
  accepted: boolean;
}

class DownloadTooLargeError extends Error {}

/** The request's wait is over: the download is left to a worker. */
const DEFERRED = Symbol('deferred');

interface Downloaded {
  size: number;
  mimeType: string;
}

/** What was learnt before the download was handed over (the answer's headers, if they came in time). */
interface Deferred {
  deferred: typeof DEFERRED;
  mimeType?: string;
  size?: number;
}

/** Resolves to `DEFERRED` at `deadline` (ms since the epoch) unless `work` settles first. */
async function until<T>(work: Promise<T>, deadline: number | undefined): Promise<T | typeof DEFERRED> {
  if (deadline === undefined) return work;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<typeof DEFERRED>((resolve) => {
    timer = setTimeout(() => resolve(DEFERRED), Math.max(0, deadline - Date.now()));
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

function urlProblem(message: string): AppError {
  return AppError.validation(`url: ${message}`, [{ field: 'url', message }]);
}

/** The last path segment of the URL, decoded, as a default file name. */
function filenameOf(url: string): string {
  const segment = new URL(url).pathname.split('/').filter(Boolean).pop() ?? '';
  try {
    return decodeURIComponent(segment) || 'file';
  } catch {
    return segment || 'file';
  }
}

/**
 * POST /media/upload/url: downloads through the SSRF-guarded outbound client (private addresses
 * refused unless OUTBOUND_ALLOW_PRIVATE), streaming to a temporary file with the size cap applied
 * as bytes arrive, then feeds the file through the chunked flow itself (initialize, chunks,
 * finalize), so the type, size, sniffing and image-dimension checks are exactly the same.
 *
 * The request waits for small, quick downloads. When the server announces more than
 * MEDIA_URL_ASYNC_BYTES, or the download is not over after MEDIA_URL_WAIT_SECONDS, the request
 * answers with a `processing` item instead and a worker downloads the file again from the start,
 * as a job of the media queue: the item's row is the record (claimed per try, swept when a worker
 * dies or Redis loses the job), and its end is `ready` or `failed` with `media.ready` / `media.failed`.
 */
@Injectable()
export class MediaUrlImportService implements OnApplicationShutdown {
  private readonly logger = new Logger('MediaUrlImport');

  constructor(
    private readonly media: MediaService,
    private readonly uploads: MediaUploadService,
    private readonly finalizer: MediaFinalizeService,
    private readonly items: MediaItemsStore,
    private readonly transactions: Transactions,
    private readonly events: EventsService,
    private readonly queue: MediaQueue,
    @Inject(MEDIA_STORAGE) private readonly storage: MediaStorage,
    @Inject(MEDIA_DOWNLOADER) private readonly http: OutboundHttp,
    @Inject(mediaConfig.KEY) private readonly cfg: ConfigType<typeof mediaConfig>,
  ) {}

  onApplicationShutdown(): void {
    this.http.close();
  }

  async importFromUrl(workspaceId: string, input: UploadFromUrlInput): Promise<UrlImport> {
    if (input.mimeType) this.assertAllowedType(input.mimeType);
    const filename = input.filename ?? filenameOf(input.url);
    const dir = await mkdtemp(join(tmpdir(), 'sps-media-url-'));
    try {
      const file = join(dir, 'download');
      const got = await this.download(input, file, {
        deadline: Date.now() + this.cfg.urlWaitMs,
        deferAboveBytes: this.cfg.urlAsyncBytes,
      });
      if ('deferred' in got) {
        const item = await this.uploads.createImport(workspaceId, {
          filename,
          mimeType: got.mimeType ?? '',
          size: got.size ?? 0,
          sourceUrl: input.url,
          altText: input.altText,
        });
        // Under Idempotency-Key this runs inside the request transaction: the job must find the row.
        await afterCommit(() => this.queue.enqueueImports([item]));
        return { item, accepted: true };
      }
      const item = await this.uploads.initialize(workspaceId, {
        filename,
        mimeType: got.mimeType,
        size: got.size,
        altText: input.altText,
      });
      try {
        return { item: await this.store(workspaceId, item, file, 'uploading'), accepted: false };
      } catch (err) {
        // The client gets the reason; no half-imported item is left behind.
        await this.media.remove(workspaceId, item.id).catch(() => undefined);
        throw err;
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  /**
   * One background download of a `processing` item (a job of the media queue): claims the item, downloads
   * the whole file with the full time budget, stores and checks it like a chunked upload. A refusal (type,
   * size, bytes, an unreachable URL) fails the item with its reason; anything else (storage or database
   * trouble) is thrown, and the sweep tries again once the claim lapses.
   */
  async runImport(mediaId: string): Promise<void> {
    const item = await this.claimImport(mediaId, this.cfg.urlImportClaimMs, this.cfg.urlImportAttempts);
    if (!item?.sourceUrl) return; // done, deleted, or held by another worker
    const dir = await mkdtemp(join(tmpdir(), 'sps-media-url-'));
    try {
      const file = join(dir, 'download');
      const given = item.mimeType ? { mimeType: item.mimeType } : {};
      const got = await this.download({ url: item.sourceUrl, ...given }, file, {});
      if ('deferred' in got) throw new Error('A background download cannot be deferred');
      const planned = await this.uploads.planImport(item, got.size, got.mimeType);
      await this.store(item.workspaceId, planned, file, 'processing');
      this.logger.log({ msg: 'Downloaded an upload from URL', mediaId, size: got.size });
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      await this.failImport(mediaId, err);
      this.logger.log({ msg: 'An upload from URL failed', mediaId, error: err.code, reason: err.message });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  /** The sweep: fails items whose tries are used up, queues the others no worker holds. */
  async sweep(): Promise<{ failed: number; requeued: number }> {
    const { failed, pending } = await this.sweepImports(this.cfg.urlImportAttempts);
    return { failed, requeued: await this.queue.enqueueImports(pending) };
  }

  // ---- the item's bookkeeping while a worker downloads ------------------------------------------

  /**
   * Takes a `processing` item for one background download: counts the try and holds the item for
   * `claimMs`. Null when another worker holds it, it is no longer processing, or its tries are used up
   * (the sweep fails it then).
   */
  private async claimImport(mediaId: string, claimMs: number, maxAttempts: number): Promise<MediaItem | null> {
    return (await this.items.claimImport(mediaId, claimMs, maxAttempts)) ? this.items.findById(mediaId) : null;
  }

  /**
   * A background download failed for good: the item becomes `failed` with the reason (the error the
   * request would have answered), its bytes are removed, and `media.failed` is recorded with it.
   */
  private async failImport(mediaId: string, problem: AppError): Promise<void> {
    await this.transactions.run(async (em) => {
      const item = await this.items.lock(em, mediaId);
      if (!item || item.status !== 'processing') return;
      await this.storage.remove(item.id);
      await this.recordFailure(em, item, problem.code, problem.message);
    });
  }

  /**
   * The sweep of background downloads: items whose tries are used up and whose last worker is gone
   * become `failed`; the others not held by a worker are returned, to be queued again (Redis may have
   * lost their job, or their worker died).
   */
  private async sweepImports(
    maxAttempts: number,
  ): Promise<{ failed: number; pending: Array<{ id: string; importAttempts: number }> }> {
    const failed = await this.transactions.run(async (em) => {
      const rows = await this.items.lockExhaustedImports(em, maxAttempts, SWEEP_BATCH);
      for (const item of rows) {
        await this.storage.remove(item.id);
        await this.recordFailure(
          em,
          item,
          'INTERNAL_ERROR',
          `The download was interrupted ${item.importAttempts} time${item.importAttempts === 1 ? '' : 's'} ` +
            '(the worker stopped before it finished); upload the file again',
        );
      }
      return rows.length;
    });
    const pending = await this.items.pendingImports(maxAttempts, SWEEP_BATCH * 10);
    if (failed > 0) this.logger.warn({ msg: 'Failed uploads from URL whose downloads kept stopping', count: failed });
    return { failed, pending };
  }

  /** Marks a processing item `failed` (its bytes already removed) and records `media.failed`, in `em`'s transaction. */
  private async recordFailure(em: EntityManager, item: MediaItem, code: string, message: string): Promise<void> {
    const failed = await this.items.markFailed(em, item.id, code, message);
    await this.events.record(em, { type: 'media.failed', workspaceId: item.workspaceId, data: MediaDto.from(failed) });
  }

  /** Feeds the downloaded file through the chunked flow (chunk 0 is sniffed, finalize checks the rest). */
  private async store(workspaceId: string, item: MediaItem, file: string, via: ReceivingStatus): Promise<MediaItem> {
    for (let index = 0; index < item.totalChunks; index++) {
      const start = index * item.chunkSize;
      const end = Math.min(item.size, start + item.chunkSize) - 1;
      await this.uploads.receiveChunk(
        workspaceId,
        { mediaId: item.id, chunkIndex: index },
        createReadStream(file, { start, end }),
        via,
      );
    }
    return this.finalizer.finalize(workspaceId, item.id, via);
  }

  /**
   * Downloads `input.url` into `file`. With a `deadline`, gives up waiting at that moment (or at once when
   * the server announces more than `deferAboveBytes`) and says what it learnt; the connection is dropped.
   */
  private async download(
    input: UploadFromUrlInput,
    file: string,
    opts: { deadline?: number; deferAboveBytes?: number },
  ): Promise<Downloaded | Deferred> {
    const opening = this.http.stream({
      method: 'GET',
      url: input.url,
      headers: { accept: '*/*' },
      timeoutMs: this.cfg.urlTimeoutMs,
    });
    let res: OutboundStreamResponse | typeof DEFERRED;
    try {
      res = await until(opening, opts.deadline);
    } catch (err) {
      throw this.downloadProblem(err);
    }
    if (res === DEFERRED) {
      // No answer yet: drop the connection whenever it comes; the worker starts over.
      opening.then(
        (late) => late.body.destroy(),
        () => undefined,
      );
      return { deferred: DEFERRED, mimeType: input.mimeType };
    }
    const body = res.body;
    try {
      if (res.status < 200 || res.status > 299) {
        throw urlProblem(
          `the server answered HTTP ${res.status}${res.status >= 300 && res.status < 400 ? ' (redirects are not followed)' : ''}`,
        );
      }
      const contentType = res.headers['content-type'];
      const mimeType = input.mimeType ?? (typeof contentType === 'string' ? contentType : '');
      if (!mimeType) {
        throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'The server sent no Content-Type; give mimeType in the request');
      }
      this.assertAllowedType(mimeType);
      const max = this.uploads.maxBytesFor(normalizeMimeType(mimeType));
      const declared = Number(res.headers['content-length']);
      const announced = Number.isFinite(declared) && declared >= 0 ? declared : undefined;
      if (announced !== undefined && announced > max) throw this.tooLarge(announced, max);
      if (announced !== undefined && opts.deferAboveBytes !== undefined && announced > opts.deferAboveBytes) {
        return { deferred: DEFERRED, mimeType, size: announced };
      }

      let size = 0;
      const cap = new Transform({
        transform(chunk: Buffer, _encoding, callback) {
          size += chunk.length;
          if (size > max) callback(new DownloadTooLargeError());
          else callback(null, chunk);
        },
      });
      const copying = pipeline(body, cap, createWriteStream(file));
      let copied: void | typeof DEFERRED;
      try {
        copied = await until(copying, opts.deadline);
      } catch (err) {
        if (err instanceof DownloadTooLargeError) throw this.tooLarge(null, max);
        throw this.downloadProblem(err);
      }
      if (copied === DEFERRED) {
        copying.catch(() => undefined); // destroyed below
        return { deferred: DEFERRED, mimeType, size: announced };
      }
      if (size === 0) throw urlProblem('the server sent an empty body');
      return { size, mimeType: normalizeMimeType(mimeType) };
    } finally {
      body.destroy();
    }
  }

  private assertAllowedType(mimeType: string): void {
    if (!this.cfg.allowedTypes.includes(normalizeMimeType(mimeType))) {
      throw new AppError(
        'UNSUPPORTED_MEDIA_TYPE',
        `Media type '${mimeType}' is not supported; use one of ${this.cfg.allowedTypes.join(', ')}`,
      );
    }
  }

  private tooLarge(declared: number | null, max: number): AppError {
    return new AppError(
      'PAYLOAD_TOO_LARGE',
      declared === null
        ? `The download exceeds the limit of ${max} bytes; it was stopped`
        : `Media of ${declared} bytes exceeds the limit of ${max} bytes`,
    );
  }

  private downloadProblem(err: unknown): AppError {
    if (err instanceof AppError) return err;
    if (err instanceof SsrfBlockedError) return urlProblem(`refused: ${err.message}`);
    if (err instanceof OutboundTimeoutError) {
      return urlProblem(`the download did not finish within ${Math.round(this.cfg.urlTimeoutMs / 1000)} s`);
    }
    if (err instanceof OutboundHttpError) return urlProblem(`could not download: ${err.message}`);
    return urlProblem(`could not download: ${(err as Error).message ?? String(err)}`);
  }
}
