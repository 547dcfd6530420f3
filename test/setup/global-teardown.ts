import { Client } from 'pg';
import { TEMPLATE_DB, TEST_PG_BASE } from './test-env';

export default async function globalTeardown(): Promise<void> {
  await (globalThis as { spsS3Server?: { stop(): Promise<void> } }).spsS3Server?.stop();
  const admin = new Client({ connectionString: TEST_PG_BASE });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${TEMPLATE_DB} WITH (FORCE)`);
  } finally {
    await admin.end();
  }
}
