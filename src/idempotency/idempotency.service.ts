import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { SecretBox } from '../common/crypto/secret-box';
import { AppError } from '../common/errors';
import { IDEMPOTENCY_KEY_MAX_LENGTH } from '../common/http/idempotency-key';
import { Transactions } from '../database/transactions';
import { IdempotencyKeysStore } from './idempotency-keys.store';

/** How long a key and its stored response are kept. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/** A sealed body (`v1.<base64url>`); plain JSON never starts with a letter followed by digits and a dot. */
const SEALED = /^v\d+\./;

export interface IdempotentRequest {
  apiKeyId: string;
  key: string;
  method: string;
  /** Path and query string, as sent. */
  path: string;
  body: unknown;
  /**
   * The workspace the key acts in when it is not its own (X-Workspace-Id, docs/adr/0052): its keys are
   * kept apart, so the same Idempotency-Key in two workspaces is two requests.
   */
  actingWorkspaceId?: string;
}

/** The prefix of the keys stored for requests acting in a workspace (see storedKey). */
const ACTING_PREFIX = 'ws:';

/**
 * The key as stored: the client's own, or for a request acting in another workspace `ws:<workspace>:`
 * and the SHA-256 of the client's key (so it fits the column), which an erasure of that workspace finds.
 */
export function storedKey(req: Pick<IdempotentRequest, 'key' | 'actingWorkspaceId'>): string {
  if (!req.actingWorkspaceId) return req.key;
  return `${ACTING_PREFIX}${req.actingWorkspaceId}:${createHash('sha256').update(req.key).digest('hex')}`;
}

export interface IdempotentOutcome {
  status: number;
  body: unknown;
  replayed: boolean;
}

/** Recursively sorted keys, so `{"a":1,"b":2}` and `{"b":2,"a":1}` are the same request. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

export function requestHash(req: Pick<IdempotentRequest, 'method' | 'path' | 'body'>): string {
  return createHash('sha256')
    .update(`${req.method.toUpperCase()} ${req.path}\n${canonicalJson(req.body)}`)
    .digest('hex');
}

/**
 * `Idempotency-Key` (docs/adr/0012-idempotency-keys.md). The request runs inside one request
 * transaction that every database statement of the handler joins; the key is taken with a
 * transaction-scoped advisory lock (a second request meanwhile gets 409), and the response is
 * inserted in the same transaction as the effect just before the commit. A crash before the
 * commit leaves neither; after it, a retry finds the stored response and replays it.
 */
@Injectable()
export class IdempotencyService {
  constructor(
    private readonly keys: IdempotencyKeysStore,
    private readonly transactions: Transactions,
    private readonly box: SecretBox,
  ) {}

  static checkKey(key: string): void {
    if (key.length === 0 || key.length > IDEMPOTENCY_KEY_MAX_LENGTH) {
      throw AppError.validation(`Idempotency-Key must be 1 to ${IDEMPOTENCY_KEY_MAX_LENGTH} characters`, [
        { field: 'Idempotency-Key', message: `must be 1 to ${IDEMPOTENCY_KEY_MAX_LENGTH} characters` },
      ]);
    }
  }

  /**
   * Replays the stored outcome of `req`, or runs `handle` (which answers the status it set and
   * the body) and stores its outcome with its effect. Failures are not stored: nothing was done.
   */
  async execute(req: IdempotentRequest, handle: () => Promise<{ status: number; body: unknown }>) {
    IdempotencyService.checkKey(req.key);
    req = { ...req, key: storedKey(req) };
    const hash = requestHash(req);
    return this.transactions.runForRequest(async (em): Promise<IdempotentOutcome> => {
      if (!(await this.keys.tryLock(em, req.apiKeyId, req.key))) {
        throw AppError.conflict('A request with this Idempotency-Key is still in progress; retry when it has finished');
      }
      const stored = await this.keys.find(em, req.apiKeyId, req.key);
      if (stored?.live) {
        if (stored.requestHash !== hash) {
          throw new AppError(
            'IDEMPOTENCY_KEY_REUSED',
            'This Idempotency-Key was already used with a different request; use a new key for a new request',
          );
        }
        return { status: stored.responseStatus, body: this.open(req, stored.responseBody), replayed: true };
      }
      if (stored) await this.keys.remove(em, req.apiKeyId, req.key);
      const outcome = await handle();
      // What the client receives is the JSON form; store exactly that.
      const body: unknown = outcome.body === undefined ? null : JSON.parse(JSON.stringify(outcome.body));
      await this.keys.insert(
        em,
        {
          apiKeyId: req.apiKeyId,
          key: req.key,
          requestHash: hash,
          responseStatus: outcome.status,
          responseBody: this.seal(req, JSON.stringify(body)),
        },
        IDEMPOTENCY_TTL_MS,
      );
      return { status: outcome.status, body, replayed: false };
    });
  }

  /** Forgets the answers stored for requests that acted in this workspace (its erasure, docs/adr/0052). */
  forgetActingIn(workspaceId: string): Promise<number> {
    return this.keys.deleteWithPrefix(`${ACTING_PREFIX}${workspaceId}:`);
  }

  /**
   * Seals bodies stored in plain JSON (rows written before bodies were sealed), at most `batch`;
   * returns how many. Rows held by a request meanwhile are skipped; either form replays the same.
   */
  async sealPlainResponses(batch = 500): Promise<number> {
    return this.transactions.run(async (em) => {
      const rows = await this.keys.lockPlainAnswers(em, batch);
      for (const row of rows) await this.keys.updateBody(em, row.apiKeyId, row.key, this.seal(row, row.responseBody));
      return rows.length;
    });
  }

  /** The row a sealed body belongs to: copied into another row, it does not open. */
  private static associatedData(req: Pick<IdempotentRequest, 'apiKeyId' | 'key'>): string {
    return `idempotency:${req.apiKeyId}:${req.key}`;
  }

  private seal(req: Pick<IdempotentRequest, 'apiKeyId' | 'key'>, json: string): string {
    return this.box.seal(json, IdempotencyService.associatedData(req));
  }

  /** The stored body: sealed, or plain JSON in a row written before sealing. */
  private open(req: Pick<IdempotentRequest, 'apiKeyId' | 'key'>, stored: string | null): unknown {
    if (stored === null) return null;
    if (!SEALED.test(stored)) return JSON.parse(stored) as unknown;
    try {
      return JSON.parse(this.box.open(stored, IdempotencyService.associatedData(req))) as unknown;
    } catch (err) {
      throw new Error(
        `The stored response of an Idempotency-Key cannot be opened (APP_ENCRYPTION_KEY changed, or the row was altered): ${(err as Error).message}`,
        { cause: err },
      );
    }
  }

  /** Deletes expired keys, at most `batch` at a time; returns how many went. */
  prune(batch = 5000): Promise<number> {
    return this.keys.deleteExpired(batch);
  }
}
