import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import type { IdempotencyRecord } from './idempotency-record.entity';

type Row = Record<string, unknown>;

/** A stored answer, and whether it is still within its 24 h. */
export type StoredAnswer = Pick<IdempotencyRecord, 'requestHash' | 'responseStatus' | 'responseBody'> & {
  live: boolean;
};

/** A row whose answer is still plain JSON (written before answers were sealed). */
export type PlainAnswer = Pick<IdempotencyRecord, 'apiKeyId' | 'key'> & { responseBody: string };

/** Columns and mapper of find (raw SQL; checked against the entity by test/database/row-mappings). */
export const STORED_ANSWER_COLUMNS = 'request_hash, response_status, response_body';
export function toStoredAnswer(r: Row): Pick<IdempotencyRecord, 'requestHash' | 'responseStatus' | 'responseBody'> {
  return {
    requestHash: r.request_hash as string,
    responseStatus: r.response_status as number,
    responseBody: r.response_body as string | null,
  };
}

/** Columns and mapper of lockPlainAnswers (raw SQL; checked by test/database/row-mappings). */
export const PLAIN_ANSWER_COLUMNS = 'api_key_id, key, response_body';
export function toPlainAnswer(r: Row): PlainAnswer {
  return { apiKeyId: r.api_key_id as string, key: r.key as string, responseBody: r.response_body as string };
}

/** Columns an answer is inserted with (raw SQL; checked by test/database/row-mappings). */
export const ANSWER_INSERT_COLUMNS = 'api_key_id, key, request_hash, response_status, response_body, expires_at';

/**
 * The `idempotency_keys` table (owned by idempotency). The statements of a keyed request run with the
 * request transaction's EntityManager, so the answer is stored with the request's effect.
 */
@Injectable()
export class IdempotencyKeysStore {
  constructor(private readonly dataSource: DataSource) {}

  /** Takes the key's transaction-scoped advisory lock; false when another request holds it. */
  async tryLock(em: EntityManager, apiKeyId: string, key: string): Promise<boolean> {
    const [{ locked }] = await em.query<[{ locked: boolean }]>(
      `SELECT pg_try_advisory_xact_lock(hashtextextended($1, 0)) AS locked`,
      [`idempotency:${apiKeyId}:${key}`],
    );
    return locked;
  }

  /** The stored answer of this key, expired or not. */
  async find(em: EntityManager, apiKeyId: string, key: string): Promise<StoredAnswer | undefined> {
    const [row] = await em.query<Row[]>(
      `SELECT ${STORED_ANSWER_COLUMNS}, expires_at > now() AS live
         FROM idempotency_keys WHERE api_key_id = $1 AND key = $2`,
      [apiKeyId, key],
    );
    return row ? { ...toStoredAnswer(row), live: row.live as boolean } : undefined;
  }

  /** Deletes every stored answer whose key starts with `prefix` (of any API key); returns how many. */
  async deleteWithPrefix(prefix: string): Promise<number> {
    // A DELETE answers [rows, rowCount] through TypeORM's query().
    // The prefixes are `ws:<uuid>:`: no LIKE wildcard in them.
    const [, count] = await this.dataSource.query<[unknown[], number]>(
      'DELETE FROM idempotency_keys WHERE key LIKE $1',
      [`${prefix}%`],
    );
    return count;
  }

  async remove(em: EntityManager, apiKeyId: string, key: string): Promise<void> {
    await em.query(`DELETE FROM idempotency_keys WHERE api_key_id = $1 AND key = $2`, [apiKeyId, key]);
  }

  /** Stores an answer (its body already sealed), kept `ttlMs` from now. */
  async insert(
    em: EntityManager,
    answer: Pick<IdempotencyRecord, 'apiKeyId' | 'key' | 'requestHash' | 'responseStatus' | 'responseBody'>,
    ttlMs: number,
  ): Promise<void> {
    await em.query(
      `INSERT INTO idempotency_keys (${ANSWER_INSERT_COLUMNS})
       VALUES ($1, $2, $3, $4, $5, now() + ($6 || ' milliseconds')::interval)`,
      [answer.apiKeyId, answer.key, answer.requestHash, answer.responseStatus, answer.responseBody, String(ttlMs)],
    );
  }

  /** Locks up to `batch` live rows whose answer is plain JSON, skipping rows a request holds. */
  async lockPlainAnswers(em: EntityManager, batch: number): Promise<PlainAnswer[]> {
    const rows = await em.query<Row[]>(
      `SELECT ${PLAIN_ANSWER_COLUMNS} FROM idempotency_keys
        WHERE response_body IS NOT NULL AND response_body !~ '^v[0-9]+\\.' AND expires_at > now()
        LIMIT $1 FOR UPDATE SKIP LOCKED`,
      [batch],
    );
    return rows.map(toPlainAnswer);
  }

  async updateBody(em: EntityManager, apiKeyId: string, key: string, body: string): Promise<void> {
    await em.query(`UPDATE idempotency_keys SET response_body = $3 WHERE api_key_id = $1 AND key = $2`, [
      apiKeyId,
      key,
      body,
    ]);
  }

  /** Deletes expired keys, at most `batch` at a time; returns how many went. */
  async deleteExpired(batch: number): Promise<number> {
    const [{ n }] = await this.dataSource.query<[{ n: number }]>(
      `WITH gone AS (
         DELETE FROM idempotency_keys
          WHERE ctid IN (SELECT ctid FROM idempotency_keys WHERE expires_at <= now() LIMIT $1)
         RETURNING 1)
       SELECT count(*)::int AS n FROM gone`,
      [batch],
    );
    return n;
  }
}
