import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, In, Repository } from 'typeorm';
import { asyncCommitFromItem } from '../database/request-transaction';
import { MediaItem, MediaStatus } from './media-item.entity';

type Row = Record<string, unknown>;

/** A `processing` item no worker holds, to queue again. */
export type PendingImport = Pick<MediaItem, 'id' | 'importAttempts'>;

/** Columns and mapper of the pending imports (raw SQL; checked against the entity by test/database/row-mappings). */
export const PENDING_IMPORT_COLUMNS = 'id, import_attempts';
export function toPendingImport(r: Row): PendingImport {
  return { id: r.id as string, importAttempts: r.import_attempts as number };
}

/** Columns a download's chunk plan rewrites (raw SQL; checked against the entity by test/database/row-mappings). */
export const IMPORT_PLAN_COLUMNS =
  'size, mime_type, chunk_size, total_chunks, received_chunks, multipart_upload_id, part_etags';

/**
 * The `media` table (owned by media): items, their upload bookkeeping (received chunks, the claims of
 * background downloads) and their lifecycle. Methods taking an EntityManager run in the caller's
 * transaction. The S3 driver's multipart bookkeeping in the same rows is MediaMultipartStore.
 */
@Injectable()
export class MediaItemsStore {
  constructor(@InjectRepository(MediaItem) private readonly media: Repository<MediaItem>) {}

  /** A new item object (not saved). */
  build(item: Partial<MediaItem>): MediaItem {
    return this.media.create(item);
  }

  /**
   * Serializes the inserts of unfinished items of a workspace (a transaction-scoped advisory lock), then
   * counts them: the count's snapshot is taken after the lock is held (two statements).
   */
  async lockAndCountUnfinished(em: EntityManager, workspaceId: string): Promise<number> {
    await em.query(`SELECT pg_advisory_xact_lock(hashtext('media-pending'), hashtext($1::text))`, [workspaceId]);
    const [{ pending }] = await em.query<[{ pending: number }]>(
      `SELECT count(*)::int AS pending FROM media
        WHERE workspace_id = $1::uuid AND (status = 'processing' OR (status = 'uploading' AND expires_at > now()))`,
      [workspaceId],
    );
    return pending;
  }

  async insert(em: EntityManager, item: MediaItem): Promise<void> {
    await em.getRepository(MediaItem).insert(item);
  }

  /** The items with these ids in the workspace. */
  findMany(workspaceId: string, ids: string[]): Promise<MediaItem[]> {
    return this.media.find({ where: { workspaceId, id: In(ids) } });
  }

  find(workspaceId: string, id: string): Promise<MediaItem | null> {
    return this.media.findOne({ where: { id, workspaceId } });
  }

  findById(id: string): Promise<MediaItem | null> {
    return this.media.findOneBy({ id });
  }

  /** The item, locked for the caller's transaction (in this workspace, when given). */
  lock(em: EntityManager, id: string, workspaceId?: string): Promise<MediaItem | null> {
    return em
      .getRepository(MediaItem)
      .findOne({ where: workspaceId ? { id, workspaceId } : { id }, lock: { mode: 'pessimistic_write' } });
  }

  /**
   * The item read FOR SHARE in the caller's transaction: waits for a change in progress (a delete, a
   * finalize) to commit, and keeps the row from being deleted meanwhile.
   */
  lockForShare(em: EntityManager, id: string, workspaceId?: string): Promise<MediaItem | null> {
    return em
      .getRepository(MediaItem)
      .findOne({ where: workspaceId ? { id, workspaceId } : { id }, lock: { mode: 'pessimistic_read' } });
  }

  async update(em: EntityManager | null, id: string, changes: Parameters<Repository<MediaItem>['update']>[1]) {
    await (em ?? this.media.manager).getRepository(MediaItem).update({ id }, changes);
  }

  /**
   * Marks a `processing` item `failed` (its bytes already removed) with the reason, releasing its claim,
   * and reads it back.
   */
  async markFailed(em: EntityManager, id: string, code: string, message: string): Promise<MediaItem> {
    await em.getRepository(MediaItem).update(
      { id },
      {
        status: 'failed',
        receivedChunks: [],
        expiresAt: null,
        importClaimedUntil: null,
        errorCode: code,
        errorMessage: message,
      },
    );
    return this.reload(em, id);
  }

  /** Reads the item back (after an update in the same transaction). */
  reload(em: EntityManager, id: string): Promise<MediaItem> {
    return em.getRepository(MediaItem).findOneByOrFail({ id });
  }

  async setAltText(workspaceId: string, id: string, altText: string | null): Promise<void> {
    await this.media.update({ id, workspaceId }, { altText });
  }

  /** Up to `limit` item ids of the workspace, whatever their state (an erasure walks them). */
  async someIdsOfWorkspace(workspaceId: string, limit: number): Promise<string[]> {
    const rows = await this.media.find({
      select: { id: true },
      where: { workspaceId },
      order: { id: 'ASC' },
      take: limit,
    });
    return rows.map((r) => r.id);
  }

  /** The bytes the workspace's items hold in storage now: originals and their converted copies. */
  async storedBytes(workspaceId: string): Promise<number> {
    const rows: Array<{ bytes: string | null }> = await this.media.query(
      `SELECT (SELECT COALESCE(SUM(m.size), 0) FROM media m WHERE m.workspace_id = $1 AND m.status = 'ready')
            + (SELECT COALESCE(SUM(v.size), 0) FROM media_variants v JOIN media m ON m.id = v.media_id
                WHERE m.workspace_id = $1) AS bytes`,
      [workspaceId],
    );
    return Number(rows[0]?.bytes ?? 0);
  }

  async delete(em: EntityManager, workspaceId: string, id: string): Promise<void> {
    await em.getRepository(MediaItem).delete({ id, workspaceId });
  }

  /**
   * Adds a received chunk's index, in one statement while the item still takes chunks in state `via`:
   * concurrent chunks serialize on the row, each adding its index to the latest set. Its commit does not
   * wait for the WAL flush (asyncCommitFromItem): a crash may forget the index; finalize then names the
   * chunk as missing and the client sends it again (docs/adr/0004). Null when the item no longer takes it.
   */
  async recordChunk(workspaceId: string, id: string, index: number, via: MediaStatus): Promise<number[] | null> {
    const [rows] = await this.media.query<[Array<{ received_chunks: number[] }>, number]>(
      `UPDATE media SET updated_at = now(),
         received_chunks = ARRAY(SELECT DISTINCT c FROM unnest(array_append(received_chunks, $3::integer)) AS c ORDER BY c)
       ${asyncCommitFromItem()}
       WHERE id = $1 AND workspace_id = $2 AND status = $4 AND (expires_at IS NULL OR expires_at > now())
       RETURNING received_chunks`,
      [id, workspaceId, index, via],
    );
    return rows[0]?.received_chunks ?? null;
  }

  /**
   * Takes a `processing` item for one background download: counts the try and holds it for `claimMs`.
   * False when another worker holds it, it is no longer processing, or its tries are used up.
   */
  async claimImport(id: string, claimMs: number, maxAttempts: number): Promise<boolean> {
    const [rows] = await this.media.query<[Array<{ id: string }>, number]>(
      `UPDATE media SET import_attempts = import_attempts + 1, updated_at = now(),
              import_claimed_until = now() + ($2 || ' milliseconds')::interval
        WHERE id = $1 AND status = 'processing' AND import_attempts < $3
          AND (import_claimed_until IS NULL OR import_claimed_until < now())
        RETURNING id`,
      [id, String(claimMs), maxAttempts],
    );
    return !!rows[0];
  }

  /** Rewrites the chunk plan of a `processing` item (no chunk received yet); false when it is no longer processing. */
  async planImport(
    id: string,
    plan: Pick<MediaItem, 'size' | 'mimeType' | 'chunkSize' | 'totalChunks'>,
  ): Promise<boolean> {
    const [rows] = await this.media.query<[Array<{ id: string }>, number]>(
      `UPDATE media SET (${IMPORT_PLAN_COLUMNS}) = ($2, $3, $4, $5, '{}', NULL, '{}'), updated_at = now()
        WHERE id = $1 AND status = 'processing' RETURNING id`,
      [id, plan.size, plan.mimeType, plan.chunkSize, plan.totalChunks],
    );
    return !!rows[0];
  }

  /** Locks up to `limit` `processing` items whose tries are used up and that no worker holds, oldest first. */
  lockExhaustedImports(em: EntityManager, maxAttempts: number, limit: number): Promise<MediaItem[]> {
    return em
      .getRepository(MediaItem)
      .createQueryBuilder('m')
      .where("m.status = 'processing' AND m.import_attempts >= :max", { max: maxAttempts })
      .andWhere('(m.import_claimed_until IS NULL OR m.import_claimed_until < now())')
      .orderBy('m.created_at', 'ASC')
      .limit(limit)
      .setLock('pessimistic_write')
      .setOnLocked('skip_locked')
      .getMany();
  }

  /** `processing` items with tries left that no worker holds, oldest first. */
  async pendingImports(maxAttempts: number, limit: number): Promise<PendingImport[]> {
    const rows = await this.media.query<Row[]>(
      `SELECT ${PENDING_IMPORT_COLUMNS} FROM media
        WHERE status = 'processing' AND import_attempts < $1
          AND (import_claimed_until IS NULL OR import_claimed_until < now())
        ORDER BY created_at LIMIT $2`,
      [maxAttempts, limit],
    );
    return rows.map(toPendingImport);
  }

  /** Locks up to `limit` `uploading` items past their deadline, skipping locked ones; their ids. */
  async lockExpiredUploads(em: EntityManager, limit: number): Promise<string[]> {
    const rows = await em
      .getRepository(MediaItem)
      .createQueryBuilder('m')
      .select('m.id')
      .where("m.status = 'uploading' AND m.expires_at <= now()")
      .orderBy('m.expires_at', 'ASC')
      .limit(limit)
      .setLock('pessimistic_write')
      .setOnLocked('skip_locked')
      .getMany();
    return rows.map((r) => r.id);
  }

  async markExpired(em: EntityManager, ids: string[]): Promise<void> {
    await em.update(MediaItem, { id: In(ids) }, { status: 'expired', receivedChunks: [] });
  }

  /** Deletes up to `limit` `expired` rows older than `retentionSeconds`; returns how many went. */
  async deleteExpiredRows(retentionSeconds: number, limit: number): Promise<number> {
    const [, deleted] = await this.media.query<[unknown, number]>(
      `DELETE FROM media WHERE id IN (
         SELECT id FROM media WHERE status = 'expired' AND updated_at < now() - make_interval(secs => $1)
          LIMIT $2)`,
      [retentionSeconds, limit],
    );
    return deleted;
  }
}
