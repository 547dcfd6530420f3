import fastify, { FastifyInstance, FastifyReply } from 'fastify';
import Redis from 'ioredis';
import { Pool } from 'pg';
import { hashApiKey, isWellFormedApiKey, revokedKeyMarker } from '../../src/auth/api-key.format';
import { encodeCursor } from '../../src/common/pagination/pagination';
import { BucketRedis, TOKEN_BUCKET_LUA } from '../../src/rate-limit/token-bucket.lua';

/**
 * The baseline: plain Fastify doing, per request, the same I/O and the same work as
 * `GET /api/api-keys?limit=1` in the app, written as directly as possible:
 *  - X-API-Key shape + checksum check (isWellFormedApiKey), SHA-256 of the key;
 *  - lookup in a Map with the same 5 s TTL, falling back to SELECT ... FROM api_keys WHERE key_hash=$1;
 *  - lastUsedAt written at most once a minute (as AuthService.touch);
 *  - the same Redis Lua token bucket with its revocation check (defineCommand, keys
 *    `<prefix>:rl:key:<apiKeyId>` and `<prefix>:auth:revoked:<apiKeyId>`) on a client configured like
 *    RedisClients.client;
 *  - `limit` validated (integer 1..100), then the same keyset query (workspace, created_at DESC, id DESC,
 *    LIMIT limit+1) through a pg Pool of the app's size;
 *  - the same JSON body ({data: ApiKeyDto[], nextCursor}) and X-RateLimit-* headers.
 * No Nest, no TypeORM, no guards/pipes/interceptors, no request id, no per-request logging.
 */
export interface BareOptions {
  databaseUrl: string;
  redisUrl: string;
  redisPrefix: string;
  poolSize: number;
  defaults: { perMinute: number; burst: number };
}

interface KeyInfo {
  workspaceId: string;
  apiKeyId: string;
  rateLimitPerMinute: number | null;
  rateLimitBurst: number | null;
  expiresAt: number | null;
  lastUsedAt: number | null;
  scopes: string[];
}

interface KeyRow {
  id: string;
  workspace_id: string;
  name: string;
  prefix: string;
  key_hash: string;
  created_at: Date;
  last_used_at: Date | null;
  expires_at: Date | null;
  revoked_at: Date | null;
  rate_limit_per_minute: number | null;
  rate_limit_burst: number | null;
  environment: string;
  scopes: string[];
  /** created_at at microsecond precision, for the cursor (as the service's lists issue it). */
  cursor_at?: string;
}

const TTL_MS = 5_000;
const LAST_USED_EVERY_MS = 60_000;
const COLUMNS =
  'id, workspace_id, name, prefix, key_hash, created_at, last_used_at, expires_at, revoked_at, ' +
  'rate_limit_per_minute, rate_limit_burst, environment, scopes';
const LOOKUP_SQL = `SELECT ${COLUMNS} FROM api_keys WHERE key_hash = $1 LIMIT 1`;
// The same columns, predicate, order and literal LIMIT as the SQL TypeORM generates for ApiKeysService.list().
const LIST_SQL =
  `SELECT ${COLUMNS}, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS cursor_at ` +
  'FROM api_keys WHERE workspace_id = $1 ORDER BY created_at DESC, id DESC LIMIT ';
const TOUCH_SQL =
  "UPDATE api_keys SET last_used_at = now() WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')";

export interface BareServer {
  app: FastifyInstance;
  close(): Promise<void>;
}

export async function startBareServer(opts: BareOptions): Promise<BareServer> {
  const pool = new Pool({ connectionString: opts.databaseUrl, max: opts.poolSize, application_name: 'bench-bare' });
  const url = new URL(opts.redisUrl);
  const redis = new Redis({
    host: url.hostname,
    port: url.port ? Number(url.port) : 6379,
    keyPrefix: `${opts.redisPrefix}:`,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    commandTimeout: 750,
    connectTimeout: 2000,
    lazyConnect: true,
  }) as BucketRedis;
  await redis.connect();
  redis.defineCommand('takeToken', { numberOfKeys: 2, lua: TOKEN_BUCKET_LUA });

  const cache = new Map<string, { value: KeyInfo | null; until: number }>();

  async function lookup(hash: string): Promise<KeyInfo | null> {
    const now = Date.now();
    let entry = cache.get(hash);
    if (entry && entry.until < now) {
      cache.delete(hash);
      entry = undefined;
    }
    if (!entry) {
      const { rows } = await pool.query<KeyRow>(LOOKUP_SQL, [hash]);
      const row = rows[0];
      const value =
        row && !row.revoked_at
          ? {
              workspaceId: row.workspace_id,
              apiKeyId: row.id,
              rateLimitPerMinute: row.rate_limit_per_minute,
              rateLimitBurst: row.rate_limit_burst,
              expiresAt: row.expires_at?.getTime() ?? null,
              lastUsedAt: row.last_used_at?.getTime() ?? null,
              scopes: row.scopes,
            }
          : null;
      entry = { value, until: Date.now() + TTL_MS };
      cache.set(hash, entry);
    }
    const value = entry.value;
    if (!value || (value.expiresAt !== null && value.expiresAt <= now)) return null;
    if (value.lastUsedAt === null || now - value.lastUsedAt >= LAST_USED_EVERY_MS) {
      value.lastUsedAt = now;
      pool.query(TOUCH_SQL, [value.apiKeyId]).catch(() => undefined);
    }
    return value;
  }

  function fail(reply: FastifyReply, status: number, error: string, message: string) {
    return reply.code(status).header('content-type', 'application/json; charset=utf-8').send({ error, message });
  }

  const app = fastify({ logger: false });
  app.get('/api/api-keys', async (request, reply) => {
    const header = request.headers['x-api-key'];
    const key = Array.isArray(header) ? header[0] : header;
    if (!key || !key.trim()) return fail(reply, 401, 'UNAUTHORIZED', 'API key required');
    const auth = isWellFormedApiKey(key) ? await lookup(hashApiKey(key)) : null;
    if (!auth) return fail(reply, 401, 'UNAUTHORIZED', 'Invalid API key');
    // The route's scope, checked on the looked-up key as the service does.
    if (!auth.scopes.includes('*') && !auth.scopes.includes('keys:manage')) {
      return fail(reply, 403, 'FORBIDDEN', 'This API key lacks the scope keys:manage');
    }

    const perMinute = auth.rateLimitPerMinute ?? opts.defaults.perMinute;
    const burst = auth.rateLimitBurst ?? opts.defaults.burst;
    let allowed = 1;
    let remaining = burst;
    let resetAtMs = Date.now();
    let retryAfterMs = 0;
    try {
      [allowed, remaining, resetAtMs, retryAfterMs] = await redis.takeToken(
        `rl:key:${auth.apiKeyId}`,
        revokedKeyMarker(auth.apiKeyId),
        burst,
        perMinute,
      );
    } catch {
      // fail open, as RedisTokenBucketStorage does
    }
    void reply.headers({
      'X-RateLimit-Limit': perMinute,
      'X-RateLimit-Remaining': allowed === 1 ? remaining : 0,
      'X-RateLimit-Reset': Math.ceil(resetAtMs / 1000),
      'X-RateLimit-Burst': burst,
    });
    if (allowed !== 1) {
      void reply.header('Retry-After', Math.max(1, Math.ceil(retryAfterMs / 1000)));
      return fail(reply, 429, 'RATE_LIMIT_EXCEEDED', 'Rate limit exceeded');
    }

    const rawLimit = (request.query as Record<string, unknown>).limit;
    const limit = rawLimit === undefined ? 20 : Number(rawLimit);
    if (!Number.isInteger(limit) || limit < 1 || limit > 100) {
      return fail(reply, 400, 'VALIDATION_ERROR', 'limit: must be an integer between 1 and 100');
    }
    const { rows } = await pool.query<KeyRow>(LIST_SQL + String(limit + 1), [auth.workspaceId]);
    const more = rows.length > limit;
    const page = more ? rows.slice(0, limit) : rows;
    const last = page[page.length - 1];
    return {
      data: page.map((k) => ({
        id: k.id,
        name: k.name,
        prefix: k.prefix,
        environment: k.environment,
        createdAt: k.created_at.toISOString(),
        lastUsedAt: k.last_used_at?.toISOString() ?? null,
        expiresAt: k.expires_at?.toISOString() ?? null,
        revokedAt: k.revoked_at?.toISOString() ?? null,
        scopes: k.scopes,
        rateLimitPerMinute: k.rate_limit_per_minute ?? opts.defaults.perMinute,
        rateLimitBurst: k.rate_limit_burst ?? opts.defaults.burst,
      })),
      nextCursor: more && last ? encodeCursor([last.cursor_at!, last.id]) : null,
    };
  });

  return {
    app,
    async close() {
      await app.close();
      await pool.end();
      redis.disconnect();
    },
  };
}
