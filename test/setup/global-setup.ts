import { Client } from 'pg';
import { runMigrations } from '../../src/database/database-bootstrap';
import { startS3Server } from './s3-server';
import { TEMPLATE_DB, TEST_PG_BASE, databaseUrl } from './test-env';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Migrates an empty template database once per run; each e2e file clones it
 * (CREATE DATABASE ... TEMPLATE), so files run in parallel on databases of their own.
 * Leftovers of runs whose process is gone are dropped; live runs are left alone.
 */
export default async function globalSetup(): Promise<void> {
  process.env.SPS_TEST_RUN_ID = String(process.pid);
  const admin = new Client({ connectionString: TEST_PG_BASE });
  await admin.connect();
  try {
    const rows = await admin.query<{ datname: string }>(
      "SELECT datname FROM pg_database WHERE datname ~ '^sps_(tpl|t)_[0-9]+'",
    );
    for (const { datname } of rows.rows) {
      const pid = Number(/^sps_(?:tpl|t)_(\d+)/.exec(datname)?.[1]);
      if (pid !== process.pid && alive(pid)) continue;
      await admin.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
    }
    await admin.query(`CREATE DATABASE ${TEMPLATE_DB}`);
  } finally {
    await admin.end();
  }
  const { Logger } = await import('@nestjs/common');
  Logger.overrideLogger(false);
  await runMigrations(databaseUrl(TEMPLATE_DB));
  if (!process.env.TEST_S3_ENDPOINT) {
    const s3 = await startS3Server();
    process.env.SPS_TEST_S3_ENDPOINT = s3.endpoint;
    (globalThis as { spsS3Server?: { stop(): Promise<void> } }).spsS3Server = s3;
  }
}
