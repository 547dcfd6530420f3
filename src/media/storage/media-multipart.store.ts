/**
 * Where a storage driver that uploads in parts (S3 multipart) keeps its bookkeeping: the upload id and each
 * part's ETag, in the `media` row beside `received_chunks`, so the driver never lists parts on the server and
 * any API or worker process can continue an upload another one started.
 *
 * Each method is one statement on the pool, outside any transaction. Only `writePart`/`begin` write here:
 * `complete` and `remove` run while the media service holds the row lock in its own transaction, so they
 * only read (a write from another connection would wait for that lock forever).
 */
import { DataSource } from 'typeorm';

export interface MultipartState {
  uploadId: string | null;
  /** Part index (0-based) -> ETag. */
  etags: Map<number, string>;
}

export interface MultipartStateStore {
  /** The item's state, or null when no such item exists. */
  get(mediaId: string): Promise<MultipartState | null>;
  /** Keeps `uploadId` unless the item already has one; returns the one kept (null when no such item exists). */
  claimUploadId(mediaId: string, uploadId: string): Promise<string | null>;
  /** Records the ETag of part `index` uploaded under `uploadId` (ignored if the item now has another upload). */
  recordPart(mediaId: string, uploadId: string, index: number, etag: string): Promise<void>;
  forgetPart(mediaId: string, index: number): Promise<void>;
}

/** The columns of this bookkeeping (raw SQL; checked against the entity by test/database/row-mappings). */
export const MULTIPART_COLUMNS = 'multipart_upload_id, part_etags';

/** Keys of `part_etags` are S3 part numbers (index + 1), as S3 itself numbers them. */
export class MediaMultipartStore implements MultipartStateStore {
  constructor(private readonly dataSource: DataSource) {}

  async get(mediaId: string): Promise<MultipartState | null> {
    const rows = await this.dataSource.query<
      Array<{ multipart_upload_id: string | null; part_etags: Record<string, string> }>
    >(`SELECT ${MULTIPART_COLUMNS} FROM media WHERE id = $1`, [mediaId]);
    const row = rows[0];
    if (!row) return null;
    const etags = new Map<number, string>();
    for (const [partNumber, etag] of Object.entries(row.part_etags ?? {})) etags.set(Number(partNumber) - 1, etag);
    return { uploadId: row.multipart_upload_id, etags };
  }

  async claimUploadId(mediaId: string, uploadId: string): Promise<string | null> {
    // TypeORM answers UPDATE ... RETURNING with [rows, affected].
    const [rows] = await this.dataSource.query<[Array<{ multipart_upload_id: string }>, number]>(
      `UPDATE media SET multipart_upload_id = COALESCE(multipart_upload_id, $2) WHERE id = $1
       RETURNING multipart_upload_id`,
      [mediaId, uploadId],
    );
    return rows[0]?.multipart_upload_id ?? null;
  }

  async recordPart(mediaId: string, uploadId: string, index: number, etag: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE media SET part_etags = part_etags || jsonb_build_object($3::text, $4::text)
       WHERE id = $1 AND multipart_upload_id = $2`,
      [mediaId, uploadId, String(index + 1), etag],
    );
  }

  async forgetPart(mediaId: string, index: number): Promise<void> {
    await this.dataSource.query('UPDATE media SET part_etags = part_etags - $2::text WHERE id = $1', [
      mediaId,
      String(index + 1),
    ]);
  }
}
