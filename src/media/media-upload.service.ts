import { randomUUID } from 'node:crypto';
import { Readable, pipeline } from 'node:stream';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { ConfigType } from '@nestjs/config';
import { AppError } from '../common/errors';
import { isUuid } from '../common/validators';
import { mediaConfig } from '../config/media.config';
import { videoConfig, type VideoConfig } from '../config/video.config';
import { isVideoType } from './video-media.util';
import { Transactions } from '../database/transactions';
import { MediaItem } from './media-item.entity';
import { MediaItemsStore } from './media-items.store';
import { normalizeMimeType } from './media-type.util';
import { MimeMismatchError, MimeSniffer } from './mime-sniffer';
import {
  InvalidMediaKeyError,
  MEDIA_STORAGE,
  MediaStorage,
  PartChecksumMismatchError,
  PartSizeMismatchError,
  PartTooLargeError,
} from './storage/media-storage.interface';
import { ReceivingStatus, assertReceiving, cleanAltText, cleanFilename } from './upload-state';

/** Rows the expiry sweep locks and purges per transaction. */
const SWEEP_BATCH = 100;

export interface InitializeUploadInput {
  filename: string;
  mimeType: string;
  size: number;
  sha256?: string;
  altText?: string | null;
}

export interface ChunkInput {
  mediaId: string;
  chunkIndex: number;
  /** Hex SHA-256 of the chunk, checked before it is kept. */
  sha256?: string;
}

export interface ImportInput {
  filename: string;
  /** The type as far as known ('' until the download's answer says). */
  mimeType: string;
  /** Bytes announced (Content-Length), 0 when unknown. */
  size: number;
  sourceUrl: string;
  altText?: string | null;
}

export interface ChunkReceipt {
  id: string;
  chunkIndex: number;
  receivedChunks: number[];
  totalChunks: number;
}

/**
 * Upload sessions, the first two steps of a chunked upload: initialize (type, size, the chunk plan, at most
 * MEDIA_MAX_PENDING_UPLOADS unfinished per workspace) and chunks; the same for an upload from a URL that a
 * worker finishes (its item is `processing`); and the expiry of sessions left unfinished. Step 3 is
 * MediaFinalizeService. Bytes go through `MediaStorage`: parts while uploading.
 *
 * Concurrency: a chunk is streamed to storage without any lock, then recorded with one atomic
 * `UPDATE ... WHERE status = 'uploading'`; finalize, delete and the expiry sweep hold the row lock
 * (`SELECT ... FOR UPDATE`) while they change the bytes, so they never interleave with each other,
 * and a chunk that lands after one of them is refused and its part dropped.
 */
@Injectable()
export class MediaUploadService {
  private readonly logger = new Logger('MediaUpload');

  constructor(
    private readonly items: MediaItemsStore,
    private readonly transactions: Transactions,
    @Inject(MEDIA_STORAGE) private readonly storage: MediaStorage,
    @Inject(mediaConfig.KEY) private readonly cfg: ConfigType<typeof mediaConfig>,
    @Inject(videoConfig.KEY) private readonly video: VideoConfig,
  ) {}

  /** Largest upload of a type: MEDIA_MAX_VIDEO_BYTES for videos, MEDIA_MAX_BYTES for the rest. */
  maxBytesFor(mimeType: string): number {
    return isVideoType(mimeType) ? this.video.maxVideoBytes : this.cfg.maxBytes;
  }

  /** Largest chunk the service ever asks for (the multipart parser's file size limit is derived from it). */
  get maxChunkBytes(): number {
    return Math.min(Math.max(this.cfg.chunkBytes, this.storage.limits.minPartSize), this.storage.limits.maxPartSize);
  }

  /** Step 1: validates type and size, picks the chunking and creates the `uploading` item. */
  async initialize(workspaceId: string, input: InitializeUploadInput): Promise<MediaItem> {
    const mimeType = normalizeMimeType(input.mimeType);
    if (!this.cfg.allowedTypes.includes(mimeType)) {
      throw new AppError(
        'UNSUPPORTED_MEDIA_TYPE',
        `Media type '${input.mimeType}' is not supported; use one of ${this.cfg.allowedTypes.join(', ')}`,
      );
    }
    const maxBytes = this.maxBytesFor(mimeType);
    if (input.size > maxBytes) {
      const limit = isVideoType(mimeType) ? ' for videos (MEDIA_MAX_VIDEO_BYTES)' : '';
      throw new AppError(
        'PAYLOAD_TOO_LARGE',
        `Media of ${input.size} bytes exceeds the limit of ${maxBytes} bytes${limit}`,
      );
    }
    const { chunkSize, totalChunks } = this.planChunks(input.size);
    const createdAt = new Date();
    const item = this.items.build({
      id: randomUUID(),
      workspaceId,
      status: 'uploading',
      filename: cleanFilename(input.filename),
      mimeType,
      size: input.size,
      sha256: input.sha256?.toLowerCase() ?? null,
      width: null,
      height: null,
      altText: cleanAltText(input.altText),
      chunkSize,
      totalChunks,
      receivedChunks: [],
      expiresAt: new Date(createdAt.getTime() + this.cfg.uploadTtlSeconds * 1000),
      finalizedAt: null,
      createdAt,
      updatedAt: createdAt,
    });
    // Storage is prepared when the first chunk arrives, so an initialize alone costs one row.
    await this.insertCapped(item);
    return item;
  }

  /**
   * An upload from a URL that a worker finishes: the `processing` item, without bytes yet. Counts
   * against the workspace's unfinished uploads like an initialize.
   */
  async createImport(workspaceId: string, input: ImportInput): Promise<MediaItem> {
    const createdAt = new Date();
    const item = this.items.build({
      id: randomUUID(),
      workspaceId,
      status: 'processing',
      filename: cleanFilename(input.filename),
      mimeType: input.mimeType ? normalizeMimeType(input.mimeType) : '',
      size: input.size,
      sha256: null,
      width: null,
      height: null,
      altText: cleanAltText(input.altText),
      chunkSize: 0,
      totalChunks: 0,
      receivedChunks: [],
      expiresAt: null,
      finalizedAt: null,
      sourceUrl: input.sourceUrl,
      importAttempts: 0,
      importClaimedUntil: null,
      errorCode: null,
      errorMessage: null,
      createdAt,
      updatedAt: createdAt,
    });
    await this.insertCapped(item);
    return item;
  }

  /** Inserts an unfinished item unless the workspace has too many (serialized per workspace by an advisory lock). */
  private async insertCapped(item: MediaItem): Promise<void> {
    await this.transactions.run(async (em) => {
      const pending = await this.items.lockAndCountUnfinished(em, item.workspaceId);
      if (pending >= this.cfg.maxPendingUploads) {
        throw AppError.conflict(
          `Too many unfinished uploads: a workspace may have ${this.cfg.maxPendingUploads} at a time; ` +
            'finalize or delete some first (unfinished uploads expire after ' +
            `${Math.round(this.cfg.uploadTtlSeconds / 3600)} h)`,
        );
      }
      await this.items.insert(em, item);
    });
  }

  /**
   * The download is in: checks its type and size like initialize, drops the bytes of an earlier,
   * interrupted try and plans the chunks the bytes are stored in.
   */
  async planImport(item: MediaItem, size: number, mimeType: string): Promise<MediaItem> {
    const type = normalizeMimeType(mimeType);
    if (!this.cfg.allowedTypes.includes(type)) {
      throw new AppError(
        'UNSUPPORTED_MEDIA_TYPE',
        `Media type '${mimeType}' is not supported; use one of ${this.cfg.allowedTypes.join(', ')}`,
      );
    }
    if (size > this.maxBytesFor(type)) {
      throw new AppError(
        'PAYLOAD_TOO_LARGE',
        `Media of ${size} bytes exceeds the limit of ${this.maxBytesFor(type)} bytes`,
      );
    }
    const { chunkSize, totalChunks } = this.planChunks(size);
    await this.storage.remove(item.id);
    if (!(await this.items.planImport(item.id, { size, mimeType: type, chunkSize, totalChunks }))) {
      throw AppError.conflict('The media item is no longer processing');
    }
    return (await this.items.findById(item.id))!;
  }

  /**
   * Step 2: streams one chunk into storage and records it. `data` is always consumed or destroyed.
   * A chunk must have exactly its expected size (chunkSize, or the remainder for the last one); more bytes
   * stop the read at once (413). Chunk 0 is sniffed on the way through (415 when it is not the declared type).
   * Re-sending a chunk replaces it; a refused chunk leaves any earlier copy of it in place.
   * `via`: clients send chunks of `uploading` items; the background download of a URL, of its `processing` item.
   */
  async receiveChunk(
    workspaceId: string,
    input: ChunkInput,
    data: Readable,
    via: ReceivingStatus = 'uploading',
  ): Promise<ChunkReceipt> {
    let item: MediaItem;
    try {
      const found = isUuid(input.mediaId) ? await this.items.find(workspaceId, input.mediaId) : null;
      if (!found) throw AppError.notFound('Media');
      item = found;
      assertReceiving(item, via);
      if (input.chunkIndex >= item.totalChunks) {
        const message = `must be below totalChunks (${item.totalChunks})`;
        throw AppError.validation(`chunkIndex: ${message}`, [{ field: 'chunkIndex', message }]);
      }
    } catch (err) {
      data.destroy();
      throw err;
    }
    const index = input.chunkIndex;
    const expected = this.expectedChunkBytes(item, index);
    if (item.receivedChunks.length === 0) {
      try {
        await this.storage.begin(item.id);
      } catch (err) {
        data.destroy();
        throw err;
      }
    }
    const source = index === 0 ? pipeline(data, new MimeSniffer(item.mimeType), () => undefined) : data;
    try {
      await this.storage.writePart(item.id, index, source, {
        offset: index * item.chunkSize,
        maxBytes: expected,
        expectedBytes: expected,
        expectedSha256: input.sha256?.toLowerCase(),
        computeSha256: false, // the whole file is hashed at finalize; a part's digest is only needed to check it
      });
    } catch (err) {
      throw await this.chunkRefusal(err, workspaceId, item, index, expected, via);
    }

    // One statement: concurrent chunks of the item serialize on its row, each adding its index to the latest set.
    // Its commit does not wait for the WAL flush: the chunks of an item queue on its row, and each would
    // otherwise hold the next for a disk flush (MediaItemsStore.recordChunk, docs/adr/0004).
    const received = await this.items.recordChunk(workspaceId, item.id, index, via);
    if (!received) throw await this.lateChunk(workspaceId, item.id, index, via);
    return { id: item.id, chunkIndex: index, receivedChunks: received, totalChunks: item.totalChunks };
  }

  /**
   * Marks uploads past their deadline `expired` and removes their parts. Runs across workspaces (it is
   * the periodic job's work, not a request's). Each batch holds the rows' locks while it removes the bytes,
   * so a crash leaves them `uploading` for the next sweep rather than `expired` with bytes left behind.
   * Returns how many items expired.
   */
  async expireStaleUploads(): Promise<number> {
    let total = 0;
    for (;;) {
      const expired = await this.transactions.run(async (em) => {
        const ids = await this.items.lockExpiredUploads(em, SWEEP_BATCH);
        for (const id of ids) await this.storage.remove(id);
        if (ids.length > 0) await this.items.markExpired(em, ids);
        return ids.length;
      });
      total += expired;
      if (expired < SWEEP_BATCH) break;
    }
    if (total > 0) this.logger.log({ msg: 'Expired unfinished uploads', count: total });
    const purged = await this.purgeExpiredRows();
    if (purged > 0) this.logger.log({ msg: 'Deleted rows of uploads expired long ago', count: purged });
    return total;
  }

  /** Deletes `expired` rows (their bytes are already gone) once the retention period has passed. */
  private async purgeExpiredRows(): Promise<number> {
    let total = 0;
    for (;;) {
      const deleted = await this.items.deleteExpiredRows(this.cfg.expiredRetentionSeconds, SWEEP_BATCH * 10);
      total += deleted;
      if (deleted < SWEEP_BATCH * 10) return total;
    }
  }

  // ---- helpers ---------------------------------------------------------------------------------

  private planChunks(size: number): { chunkSize: number; totalChunks: number } {
    const { maxPartCount, maxPartSize } = this.storage.limits;
    const chunkSize = Math.min(Math.max(this.maxChunkBytes, Math.ceil(size / maxPartCount)), maxPartSize);
    const totalChunks = Math.max(1, Math.ceil(size / chunkSize));
    if (totalChunks > maxPartCount) {
      throw new AppError('PAYLOAD_TOO_LARGE', `Media of ${size} bytes cannot be stored in ${maxPartCount} chunks`);
    }
    return { chunkSize, totalChunks };
  }

  private expectedChunkBytes(item: MediaItem, index: number): number {
    return index < item.totalChunks - 1 ? item.chunkSize : item.size - item.chunkSize * (item.totalChunks - 1);
  }

  /** Turns a failed part write into the answer for the client. */
  private async chunkRefusal(
    err: unknown,
    workspaceId: string,
    item: MediaItem,
    index: number,
    expected: number,
    via: ReceivingStatus,
  ): Promise<unknown> {
    if (err instanceof PartTooLargeError) {
      return new AppError(
        'PAYLOAD_TOO_LARGE',
        `Chunk ${index} exceeds its size of ${expected} bytes (every chunk but the last is exactly chunkSize bytes)`,
      );
    }
    if (err instanceof PartSizeMismatchError) {
      const message = `has ${err.actualBytes} bytes, expected ${expected} (every chunk but the last is exactly chunkSize bytes)`;
      return AppError.validation(`chunk ${index} ${message}`, [{ field: 'chunk', message }]);
    }
    if (err instanceof PartChecksumMismatchError) {
      const message = `does not match the chunk's bytes (${err.actualSha256}); the chunk was discarded`;
      return AppError.validation(`sha256: ${message}`, [{ field: 'sha256', message }]);
    }
    if (err instanceof MimeMismatchError) return new AppError('UNSUPPORTED_MEDIA_TYPE', err.message);
    if (err instanceof InvalidMediaKeyError) return AppError.validation(err.message);
    // The item may have been deleted, expired or finalized while the bytes streamed in (its parts directory
    // removed under the write). FOR SHARE waits for such a change to commit, so the answer reflects it.
    const current = await this.transactions.run((em) => this.items.lockForShare(em, item.id, workspaceId));
    if (!current) return AppError.notFound('Media');
    try {
      assertReceiving(current, via);
    } catch (stateError) {
      return stateError;
    }
    return err;
  }

  /** The chunk was stored but the item stopped accepting chunks meanwhile: drop it and say why. */
  private async lateChunk(
    workspaceId: string,
    mediaId: string,
    index: number,
    via: ReceivingStatus,
  ): Promise<AppError> {
    const current = await this.items.find(workspaceId, mediaId);
    try {
      if (!current || current.status === 'failed' || current.status === 'expired') await this.storage.remove(mediaId);
      else if (current.status === 'ready') await this.storage.deletePart(mediaId, index);
    } catch (err) {
      this.logger.warn({ msg: 'Could not drop a late chunk', mediaId, index, err: (err as Error).message });
    }
    if (!current) return AppError.notFound('Media');
    try {
      assertReceiving(current, via);
    } catch (err) {
      return err as AppError;
    }
    return AppError.conflict('Media upload no longer accepts chunks');
  }
}
