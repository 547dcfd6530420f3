import Redis from 'ioredis';
import { Client } from 'pg';

/** Where the benches find Postgres and Redis; override with BENCH_PG_BASE / BENCH_REDIS_URL. */
export const PG_BASE = process.env.BENCH_PG_BASE ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';

export function databaseUrl(name: string): string {
  const url = new URL(PG_BASE);
  url.pathname = `/${name}`;
  return url.toString();
}

/**
 * The environment the app reads through src/config in a bench: its own database and Redis prefix,
 * otherwise as in development (no NODE_ENV=production), quiet logs, no bootstrap key.
 */
export function benchAppEnv(database: string, redisPrefix: string) {
  return {
    NODE_ENV: 'development',
    DATABASE_URL: databaseUrl(database),
    REDIS_URL,
    REDIS_PREFIX: redisPrefix,
    LOG_LEVEL: 'warn',
    BOOTSTRAP_KEY: 'false',
    MIGRATIONS_RUN: 'true',
  };
}

/** An integer knob from the environment (BENCH_*), with a fallback and a lower bound. */
export function intEnv(name: string, fallback: number, min = 1): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) throw new Error(`${name} must be an integer >= ${min}, got "${raw}"`);
  return n;
}

/** Runs `fn` with a connection to the server's maintenance database. */
export async function withAdmin<T>(fn: (admin: Client) => Promise<T>): Promise<T> {
  const admin = new Client({ connectionString: PG_BASE });
  await admin.connect();
  try {
    return await fn(admin);
  } finally {
    await admin.end();
  }
}

export async function dropDatabase(name: string): Promise<void> {
  await withAdmin((admin) => admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
}

/** Deletes every Redis key under a bench's prefix (rate-limit buckets, Bull bookkeeping). */
export async function deleteRedisKeys(prefix: string): Promise<number> {
  const redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await redis.connect();
  let deleted = 0;
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length) deleted += await redis.del(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
  return deleted;
}
