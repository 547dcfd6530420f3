import { Client } from 'pg';
import { runMigrations } from '../../src/database/database-bootstrap';
import { TEMPLATE_DB, TEST_PG_BASE, databaseUrl } from './test-env';

/**
 * Migrates an empty template database once per run; each e2e file clones it
 * (CREATE DATABASE ... TEMPLATE), so files run in parallel on databases of their own.
 */
export default async function globalSetup(): Promise<void> {
  const admin = new Client({ connectionString: TEST_PG_BASE });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${TEMPLATE_DB} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${TEMPLATE_DB}`);
    // Leftovers of interrupted runs
    const stale = await admin.query<{ datname: string }>(
      "SELECT datname FROM pg_database WHERE datname LIKE 'sps_t_%' AND datname <> $1",
      [TEMPLATE_DB],
    );
    for (const { datname } of stale.rows) await admin.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
  } finally {
    await admin.end();
  }
  const { Logger } = await import('@nestjs/common');
  Logger.overrideLogger(false);
  await runMigrations(databaseUrl(TEMPLATE_DB));
}
