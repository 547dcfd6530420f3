import Redis from 'ioredis';
import { Client } from 'pg';

/** Where the bench finds Postgres and Redis; override with BENCH_PG_BASE / BENCH_REDIS_URL. */
export const PG_BASE = process.env.BENCH_PG_BASE ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
export const BENCH_DB = 'sps_bench_auth';
export const REDIS_PREFIX = 'bench-auth';

export function databaseUrl(name: string): string {
  const url = new URL(PG_BASE);
  url.pathname = `/${name}`;
  return url.toString();
}

/**
 * The environment the app reads through src/config. Kept as in development (no NODE_ENV=production):
 * LOG_LEVEL=warn, no bootstrap key, default pool size and rate-limit defaults.
 */
export function applyBenchEnv(): void {
  Object.assign(process.env, {
    NODE_ENV: 'development',
    DATABASE_URL: databaseUrl(BENCH_DB),
    REDIS_URL,
    REDIS_PREFIX,
    LOG_LEVEL: 'warn',
    BOOTSTRAP_KEY: 'false',
    MIGRATIONS_RUN: 'true',
    APP_ROLE: 'api',
  });
}

async function withAdmin<T>(fn: (admin: Client) => Promise<T>): Promise<T> {
  const admin = new Client({ connectionString: PG_BASE });
  await admin.connect();
  try {
    return await fn(admin);
  } finally {
    await admin.end();
  }
}

export async function dropBenchDatabase(): Promise<void> {
  await withAdmin((admin) => admin.query(`DROP DATABASE IF EXISTS "${BENCH_DB}" WITH (FORCE)`));
}

/** Deletes every Redis key under the bench prefix (rate-limit buckets, Bull bookkeeping). */
export async function deleteBenchRedisKeys(): Promise<number> {
  const redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await redis.connect();
  let deleted = 0;
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${REDIS_PREFIX}:*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length) deleted += await redis.del(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
  return deleted;
}
