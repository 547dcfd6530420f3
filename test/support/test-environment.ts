import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Redis from 'ioredis';
import { Client } from 'pg';
import { CLONE_PREFIX, TEMPLATE_DB, TEST_PG_BASE, TEST_REDIS_URL, databaseUrl } from '../setup/test-env';

/** An isolated database (cloned from the migrated template) and Redis prefix for one spec file. */
export class TestEnvironment {
  readonly dbName = `${CLONE_PREFIX}${randomBytes(6).toString('hex')}`;
  readonly redisPrefix = `t${randomBytes(4).toString('hex')}`;
  readonly databaseUrl = databaseUrl(this.dbName);
  /**
   * Where the service generates its keys on first start (no APP_ENCRYPTION_KEY / MEDIA_URL_SIGNING_KEYS
   * here, as on a first `npm start`); its child processes read the same file.
   */
  readonly secretsFile = join(tmpdir(), `sps-secrets-${this.redisPrefix}`, 'secrets.env');

  async create(extraEnv: Record<string, string> = {}): Promise<void> {
    const admin = new Client({ connectionString: TEST_PG_BASE });
    await admin.connect();
    try {
      await admin.query(`CREATE DATABASE ${this.dbName} TEMPLATE ${TEMPLATE_DB}`);
    } finally {
      await admin.end();
    }
    Object.assign(process.env, {
      NODE_ENV: 'test',
      DATABASE_URL: this.databaseUrl,
      REDIS_URL: TEST_REDIS_URL,
      REDIS_PREFIX: this.redisPrefix,
      MIGRATIONS_RUN: 'false',
      BOOTSTRAP_KEY: 'false',
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
      OUTBOUND_ALLOW_PRIVATE: 'true',
      APP_SECRETS_FILE: this.secretsFile,
      // No load balancer to wait for: apps and processes close their listener at once on shutdown.
      SHUTDOWN_DRAIN_DELAY_MS: '0',
      ...extraEnv,
    });
  }

  async destroy(): Promise<void> {
    rmSync(join(this.secretsFile, '..'), { recursive: true, force: true });
    const redis = new Redis(TEST_REDIS_URL);
    try {
      let cursor = '0';
      do {
        const [next, keys] = await redis.scan(cursor, 'MATCH', `${this.redisPrefix}:*`, 'COUNT', 1000);
        cursor = next;
        if (keys.length) await redis.del(...keys);
      } while (cursor !== '0');
    } finally {
      redis.disconnect();
    }
    const admin = new Client({ connectionString: TEST_PG_BASE });
    await admin.connect();
    try {
      await admin.query(`DROP DATABASE IF EXISTS ${this.dbName} WITH (FORCE)`);
    } finally {
      await admin.end();
    }
  }
}
