import { randomUUID } from 'node:crypto';
import { Readable, pipeline } from 'node:stream';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { ConfigType } from '@nestjs/config';
import { InjectRepository } from '@nestjs/typeorm';
import { DataSource, EntityManager, In, Repository } from 'typeorm';
import { AppError } from '../common/errors';
import { mediaConfig } from '../config/media.config';
import { EventsService } from '../events/events.service';
import { MediaDto } from './dto/media.dto';
import {
  ImageCheckError,
  PngStructureCheck,
  checkImageFile,
  checkPixelCount,
  withTemporaryCopy,
} from './image-check.util';
import { variantName } from './image-convert.util';
import { ImageSize, readImageSizeFromStream } from './image-size.util';
import { ImageSlots } from './image-slots';
import { MediaContentService } from './media-content.service';
import { MediaItem, MediaStatus } from './media-item.entity';
import { MediaVariantsService } from './media-variants.service';
import { MEDIA_USAGE, MediaUsage } from './media-usage.port';
import { MIME_SNIFF_BYTES, mimeMatches, normalizeMimeType, sniffMimeType } from './media-type.util';
import { MimeMismatchError, MimeSniffer } from './mime-sniffer';
import {
  InvalidMediaKeyError,
  MEDIA_STORAGE,
  MediaStorage,
  MissingPartsError,
  PartChecksumMismatchError,
  PartSizeMismatchError,
  PartTooLargeError,
} from './storage/media-storage.interface';
import { isUuid } from '../common/validators';
import { asyncCommitFromItem } from '../database/request-transaction';

/** How many missing indexes a 409 message names before it summarizes the rest. */
const MISSING_LISTED = 50;
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

/** The states in which an item takes bytes: a client's chunked upload, or a background download from a URL. */
export type ReceivingStatus = Extract<MediaStatus, 'uploading' | 'processing'>;

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

/** Strips directories and control characters from a client-supplied file name. */
function cleanFilename(name: string): string {
  // eslint-disable-next-line no-control-regex
  const base = (name.split(/[\\/]/).pop() ?? '').replace(/[\u0000-\u001f\u007f]/g, '').trim();
  return base.slice(0, 255) || 'file';
}

/** Alt text as stored: null for none (absent, null, or only white space). */
function cleanAltText(text: string | null | undefined): string | null {
  return text && text.trim() ? text : null;
}

function listMissing(missing: readonly number[]): string {
  const shown = missing.slice(0, MISSING_LISTED).join(', ');
  return missing.length > MISSING_LISTED ? `${shown} and ${missing.length - MISSING_LISTED} more` : shown;
}

/**
 * Three-step chunked uploads (initialize, chunks, finalize), reads, deletion and expiry of media items.
 * Bytes go through `MediaStorage`: parts while uploading, one object once ready.
 *
 * Concurrency: a chunk is streamed to storage without any lock, then recorded with one atomic
 * `UPDATE ... WHERE status = 'uploading'`; finalize, delete and the expiry sweep hold the row lock
 * (`SELECT ... FOR UPDATE`) while they change the bytes, so they never interleave with each other,
 * and a chunk that lands after one of them is refused and its part dropped.
 */
@Injectable()
export class MediaService {
  private readonly logger = new Logger(MediaService.name);

  constructor(
    @InjectRepository(MediaItem) private readonly media: Repository<MediaItem>,
    private readonly dataSource: DataSource,
    @Inject(MEDIA_STORAGE) private readonly storage: MediaStorage,
    @Inject(mediaConfig.KEY) private readonly cfg: ConfigType<typeof mediaConfig>,
    @Inject(MEDIA_USAGE) private readonly usage: MediaUsage,
    private readonly events: EventsService,
    private readonly variants: MediaVariantsService,
    private readonly content: MediaContentService,
    private readonly slots: ImageSlots,
  ) {}

  /** Largest chunk the service ever asks for (the multipart parser's file size limit is derived from it). */
  get maxChunkBytes(): number {
    return Math.min(Math.max(this.cfg.chunkBytes, this.storage.limits.minPartSize), this.storage.limits.maxPartSize);
  }

  // ---- the contract the posts module relies on -------------------------------------------------

  /** The media items with these ids in the workspace (unknown or foreign ids are simply absent). */
  findMany(workspaceId: string, ids: string[]): Promise<MediaItem[]> {
    const valid = [...new Set(ids.filter((id) => isUuid(id)))];
    if (valid.length === 0) return Promise.resolve([]);
    return this.media.find({ where: { workspaceId, id: In(valid) } });
  }

  /**
   * Streams the final bytes of a `ready` item, or of its copy in `mimeType` (made by `convert`); the
   * stream errors if there are none.
   */
  open(mediaId: string, mimeType?: string): Readable {
    return mimeType === undefined ? this.storage.open(mediaId) : this.variants.open(mediaId, mimeType);
  }

  /**
   * The item as `mimeType` (`image/jpeg`, `image/png`, `image/webp`), converted once and kept with the
   * item. UNSUPPORTED_MEDIA_TYPE when it cannot be converted, NOT_FOUND when it is gone.
   */
  async convert(
    mediaId: string,
    mimeType: string,
  ): Promise<{ mimeType: string; size: number; width: number; height: number; sha256: string }> {
    const v = await this.variants.convert(mediaId, mimeType);
    return { mimeType: v.mimeType, size: v.size, width: v.width, height: v.height, sha256: v.sha256 };
  }

  /** A fresh signed public URL of the item's bytes (or of its copy in `mimeType`), valid MEDIA_URL_TTL_SECONDS. */
  signedUrl(mediaId: string, mimeType?: string): string {
    return this.content.signedUrl(mediaId, mimeType);
  }

  // ---- upload ----------------------------------------------------------------------------------

  /** Step 1: validates type and size, picks the chunking and creates the `uploading` item. */
  async initialize(workspaceId: string, input: InitializeUploadInput): Promise<MediaItem> {
    const mimeType = normalizeMimeType(input.mimeType);
    if (!this.cfg.allowedTypes.includes(mimeType)) {
      throw new AppError(
        'UNSUPPORTED_MEDIA_TYPE',
        `Media type '${input.mimeType}' is not supported; use one of ${this.cfg.allowedTypes.join(', ')}`,
      );
    }
    if (input.size > this.cfg.maxBytes) {
      throw new AppError(
        'PAYLOAD_TOO_LARGE',
        `Media of ${input.size} bytes exceeds the limit of ${this.cfg.maxBytes} bytes`,
      );
    }
    const { chunkSize, totalChunks } = this.planChunks(input.size);
    const createdAt = new Date();
    const item = this.media.create({
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
    const item = this.media.create({
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
    await this.dataSource.transaction(async (em) => {
      // Two statements: the count's snapshot must be taken after the lock is held.
      await em.query(`SELECT pg_advisory_xact_lock(hashtext('media-pending'), hashtext($1::text))`, [item.workspaceId]);
      const [{ pending }] = await em.query<[{ pending: number }]>(
        `SELECT count(*)::int AS pending FROM media
          WHERE workspace_id = $1::uuid AND (status = 'processing' OR (status = 'uploading' AND expires_at > now()))`,
        [item.workspaceId],
      );
      if (pending >= this.cfg.maxPendingUploads) {
        throw AppError.conflict(
          `Too many unfinished uploads: a workspace may have ${this.cfg.maxPendingUploads} at a time; ` +
            'finalize or delete some first (unfinished uploads expire after ' +
            `${Math.round(this.cfg.uploadTtlSeconds / 3600)} h)`,
        );
      }
      await em.getRepository(MediaItem).insert(item);
    });
  }

  // ---- background downloads (uploads from a URL that take long) --------------------------------

  /**
   * Takes a `processing` item for one background download: counts the try and holds the item for
   * `claimMs`. Null when another worker holds it, it is no longer processing, or its tries are used up
   * (the sweep fails it then).
   */
  async claimImport(mediaId: string, claimMs: number, maxAttempts: number): Promise<MediaItem | null> {
    const [rows] = await this.media.query<[Array<{ id: string }>, number]>(
      `UPDATE media SET import_attempts = import_attempts + 1, updated_at = now(),
              import_claimed_until = now() + ($2 || ' milliseconds')::interval
        WHERE id = $1 AND status = 'processing' AND import_attempts < $3
          AND (import_claimed_until IS NULL OR import_claimed_until < now())
        RETURNING id`,
      [mediaId, String(claimMs), maxAttempts],
    );
    return rows[0] ? this.media.findOneBy({ id: mediaId }) : null;
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
    if (size > this.cfg.maxBytes) {
      throw new AppError('PAYLOAD_TOO_LARGE', `Media of ${size} bytes exceeds the limit of ${this.cfg.maxBytes} bytes`);
    }
    const { chunkSize, totalChunks } = this.planChunks(size);
    await this.storage.remove(item.id);
    const [rows] = await this.media.query<[Array<{ id: string }>, number]>(
      `UPDATE media SET size = $2, mime_type = $3, chunk_size = $4, total_chunks = $5, received_chunks = '{}',
              multipart_upload_id = NULL, part_etags = '{}', updated_at = now()
        WHERE id = $1 AND status = 'processing' RETURNING id`,
      [item.id, size, type, chunkSize, totalChunks],
    );
    if (!rows[0]) throw AppError.conflict('The media item is no longer processing');
    return this.media.findOneByOrFail({ id: item.id });
  }

  /**
   * A background download failed for good: the item becomes `failed` with the reason (the error the
   * request would have answered), its bytes are removed, and `media.failed` is recorded with it.
   */
  async failImport(mediaId: string, problem: AppError): Promise<void> {
    await this.dataSource.transaction(async (em) => {
      const repo = em.getRepository(MediaItem);
      const item = await repo.findOne({ where: { id: mediaId }, lock: { mode: 'pessimistic_write' } });
      if (!item || item.status !== 'processing') return;
      await this.storage.remove(item.id);
      await this.markFailed(em, item, problem.code, problem.message);
    });
  }

  /**
   * The sweep of background downloads: items whose tries are used up and whose last worker is gone
   * become `failed`; the others not held by a worker are returned, to be queued again (Redis may have
   * lost their job, or their worker died).
   */
  async sweepImports(
    maxAttempts: number,
  ): Promise<{ failed: number; pending: Array<{ id: string; importAttempts: number }> }> {
    const failed = await this.dataSource.transaction(async (em) => {
      const rows = await em
        .getRepository(MediaItem)
        .createQueryBuilder('m')
        .where("m.status = 'processing' AND m.import_attempts >= :max", { max: maxAttempts })
        .andWhere('(m.import_claimed_until IS NULL OR m.import_claimed_until < now())')
        .orderBy('m.created_at', 'ASC')
        .limit(SWEEP_BATCH)
        .setLock('pessimistic_write')
        .setOnLocked('skip_locked')
        .getMany();
      for (const item of rows) {
        await this.storage.remove(item.id);
        await this.markFailed(
          em,
          item,
          'INTERNAL_ERROR',
          `The download was interrupted ${item.importAttempts} time${item.importAttempts === 1 ? '' : 's'} ` +
            '(the worker stopped before it finished); upload the file again',
        );
      }
      return rows.length;
    });
    const pending = await this.media.query<Array<{ id: string; import_attempts: number }>>(
      `SELECT id, import_attempts FROM media
        WHERE status = 'processing' AND import_attempts < $1
          AND (import_claimed_until IS NULL OR import_claimed_until < now())
        ORDER BY created_at LIMIT ${SWEEP_BATCH * 10}`,
      [maxAttempts],
    );
    if (failed > 0) this.logger.warn({ msg: 'Failed uploads from URL whose downloads kept stopping', count: failed });
    return { failed, pending: pending.map((r) => ({ id: r.id, importAttempts: r.import_attempts })) };
  }

  /** Marks a processing item `failed` (its bytes already removed) and records `media.failed`, in `em`'s transaction. */
  private async markFailed(em: EntityManager, item: MediaItem, code: string, message: string): Promise<void> {
    await em.getRepository(MediaItem).update(
      { id: item.id },
      {
        status: 'failed',
        receivedChunks: [],
        expiresAt: null,
        importClaimedUntil: null,
        errorCode: code,
        errorMessage: message,
      },
    );
    const failed = await em.getRepository(MediaItem).findOneByOrFail({ id: item.id });
    await this.events.record(em, { type: 'media.failed', workspaceId: item.workspaceId, data: MediaDto.from(failed) });
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
      item = await this.get(workspaceId, input.mediaId);
      this.assertReceiving(item, via);
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
    // Its commit does not wait for the WAL flush (asyncCommitFromItem): the chunks of an item queue on its row,
    // and each would otherwise hold the next for a disk flush. A crash may forget the index; finalize then
    // names the chunk as missing and the client sends it again (docs/adr/0004).
    const [rows] = await this.media.query<[Array<{ received_chunks: number[] }>, number]>(
      `UPDATE media SET updated_at = now(),
         received_chunks = ARRAY(SELECT DISTINCT c FROM unnest(array_append(received_chunks, $3::integer)) AS c ORDER BY c)
       ${asyncCommitFromItem()}
       WHERE id = $1 AND workspace_id = $2 AND status = $4 AND (expires_at IS NULL OR expires_at > now())
       RETURNING received_chunks`,
      [item.id, workspaceId, index, via],
    );
    const row = rows[0];
    if (!row) throw await this.lateChunk(workspaceId, item.id, index, via);
    return { id: item.id, chunkIndex: index, receivedChunks: row.received_chunks, totalChunks: item.totalChunks };
  }

  /**
   * Step 3: joins the chunks and verifies size, SHA-256 (when declared), real type, and that an image
   * decodes within MEDIA_MAX_IMAGE_PIXELS. Runs under the row lock, so concurrent calls finalize once; a
   * `ready` item is returned unchanged. A verification failure marks the item `failed` (with the reason)
   * and removes its bytes. The end of a background download (`via: 'processing'`) records `media.ready`
   * or `media.failed` with it. An image takes one of the process's image slots first (before the
   * transaction, so waiting for one holds no connection).
   */
  async finalize(workspaceId: string, mediaId: string, via: ReceivingStatus = 'uploading'): Promise<MediaItem> {
    const peek = isUuid(mediaId) ? await this.media.findOne({ where: { id: mediaId, workspaceId } }) : null;
    if (peek?.status === via && peek.mimeType.startsWith('image/')) {
      return this.slots.run(() => this.finalizeLocked(workspaceId, mediaId, via));
    }
    return this.finalizeLocked(workspaceId, mediaId, via);
  }

  private async finalizeLocked(workspaceId: string, mediaId: string, via: ReceivingStatus): Promise<MediaItem> {
    const outcome = await this.dataSource.transaction<{ item: MediaItem } | { problem: AppError }>(async (em) => {
      const repo = em.getRepository(MediaItem);
      const item = isUuid(mediaId)
        ? await repo.findOne({ where: { id: mediaId, workspaceId }, lock: { mode: 'pessimistic_write' } })
        : null;
      if (!item) throw AppError.notFound('Media');
      if (item.status === 'ready') return { item };
      this.assertReceiving(item, via);

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
        await repo.update({ id: item.id }, { receivedChunks: item.receivedChunks.filter((i) => !lost.has(i)) });
        return { problem: this.missingChunks(err.missing) };
      }

      const checked = await this.inspect(item, digest);
      if ('problem' in checked) {
        await this.storage.remove(item.id);
        if (via === 'processing') await this.markFailed(em, item, checked.problem.code, checked.problem.message);
        else
          await repo.update(
            { id: item.id },
            {
              status: 'failed',
              receivedChunks: [],
              expiresAt: null,
              errorCode: checked.problem.code,
              errorMessage: checked.problem.message,
            },
          );
        return checked;
      }
      const { dims } = checked;
      await repo.update(
        { id: item.id },
        {
          status: 'ready',
          sha256: digest.sha256,
          width: dims?.width ?? null,
          height: dims?.height ?? null,
          expiresAt: null,
          importClaimedUntil: null,
          finalizedAt: () => 'now()',
        },
      );
      const ready = await repo.findOneByOrFail({ id: item.id });
      if (via === 'processing') {
        await this.events.record(em, { type: 'media.ready', workspaceId, data: MediaDto.from(ready) });
      }
      return { item: ready };
    });
    if ('problem' in outcome) throw outcome.problem;
    return outcome.item;
  }

  // ---- read / delete ---------------------------------------------------------------------------

  async get(workspaceId: string, id: string): Promise<MediaItem> {
    const item = isUuid(id) ? await this.media.findOne({ where: { id, workspaceId } }) : null;
    if (!item) throw AppError.notFound('Media');
    return item;
  }

  /** Sets (or with null, removes) the item's alt text, whatever its state. */
  async updateAltText(workspaceId: string, id: string, altText: string | null): Promise<MediaItem> {
    const item = await this.get(workspaceId, id);
    await this.media.update({ id: item.id, workspaceId }, { altText: cleanAltText(altText) });
    return this.get(workspaceId, id);
  }

  /** Removes the item and its bytes; 409 while a scheduled or publishing post uses it. */
  async remove(workspaceId: string, id: string): Promise<void> {
    await this.get(workspaceId, id);
    await this.dataSource.transaction(async (em) => {
      const repo = em.getRepository(MediaItem);
      const item = await repo.findOne({ where: { id, workspaceId }, lock: { mode: 'pessimistic_write' } });
      if (!item) throw AppError.notFound('Media');
      if (await this.usage.isInUse(workspaceId, id)) {
        throw AppError.conflict('Media is used by a scheduled or publishing post');
      }
      // Bytes first: if this fails the row stays and the client can retry; the reverse would leak bytes.
      // Conversions hold the item FOR SHARE, so every variant made is listed here.
      for (const v of await this.variants.listIn(em, id)) {
        const name = variantName(v.mimeType);
        if (name) await this.storage.removeVariant(id, name);
      }
      await this.storage.remove(id);
      await repo.delete({ id, workspaceId });
    });
  }

  // ---- lifecycle -------------------------------------------------------------------------------

  /**
   * Marks uploads past their deadline `expired` and removes their parts. Runs across workspaces (it is
   * the queue job's work, not a request's). Each batch holds the rows' locks while it removes the bytes,
   * so a crash leaves them `uploading` for the next sweep rather than `expired` with bytes left behind.
   * Returns how many items expired.
   */
  async expireStaleUploads(): Promise<number> {
    let total = 0;
    for (;;) {
      const expired = await this.dataSource.transaction(async (em) => {
        const rows = await em
          .getRepository(MediaItem)
          .createQueryBuilder('m')
          .select('m.id')
          .where("m.status = 'uploading' AND m.expires_at <= now()")
          .orderBy('m.expires_at', 'ASC')
          .limit(SWEEP_BATCH)
          .setLock('pessimistic_write')
          .setOnLocked('skip_locked')
          .getMany();
        for (const row of rows) await this.storage.remove(row.id);
        if (rows.length > 0) {
          await em.update(MediaItem, { id: In(rows.map((r) => r.id)) }, { status: 'expired', receivedChunks: [] });
        }
        return rows.length;
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
      const [, deleted] = await this.media.query<[unknown, number]>(
        `DELETE FROM media WHERE id IN (
           SELECT id FROM media WHERE status = 'expired' AND updated_at < now() - make_interval(secs => $1)
            LIMIT ${SWEEP_BATCH * 10})`,
        [this.cfg.expiredRetentionSeconds],
      );
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

  private assertReceiving(item: MediaItem, via: ReceivingStatus): void {
    if (item.status !== via) {
      throw AppError.conflict(
        item.status === 'ready' ? 'Media upload is already finalized' : `Media upload is ${item.status}`,
      );
    }
    if (item.expiresAt && item.expiresAt.getTime() <= Date.now()) throw AppError.conflict('Media upload is expired');
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
  ): Promise<{ problem: AppError } | { dims: ImageSize | null }> {
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

  /** Refuses an image above the pixel limit at once; otherwise checks its file and decodes it. */
  private async checkImage(item: MediaItem, dims: ImageSize): Promise<void> {
    const maxPixels = this.cfg.maxImagePixels;
    checkPixelCount(dims, maxPixels);
    const through = item.mimeType === 'image/png' ? [new PngStructureCheck()] : [];
    await withTemporaryCopy(this.storage.open(item.id), through, (path) => checkImageFile(path, dims, maxPixels));
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
    const current = await this.dataSource.transaction((em) =>
      em.getRepository(MediaItem).findOne({ where: { id: item.id, workspaceId }, lock: { mode: 'pessimistic_read' } }),
    );
    if (!current) return AppError.notFound('Media');
    try {
      this.assertReceiving(current, via);
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
    const current = await this.media.findOne({ where: { id: mediaId, workspaceId } });
    try {
      if (!current || current.status === 'failed' || current.status === 'expired') await this.storage.remove(mediaId);
      else if (current.status === 'ready') await this.storage.deletePart(mediaId, index);
    } catch (err) {
      this.logger.warn({ msg: 'Could not drop a late chunk', mediaId, index, err: (err as Error).message });
    }
    if (!current) return AppError.notFound('Media');
    try {
      this.assertReceiving(current, via);
    } catch (err) {
      return err as AppError;
    }
    return AppError.conflict('Media upload no longer accepts chunks');
  }
}
