import { Logger } from '@nestjs/common';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { buildDataSourceOptions } from './data-source-options';

const MIGRATION_LOCK = 727_100_001;

/**
 * Creates the database named in `url` when it does not exist (connecting to `postgres` to do so).
 * Connecting waits at most `connectTimeoutMs` (0 = no bound).
 */
export async function ensureDatabase(
  url: string,
  logger = new Logger('Database'),
  connectTimeoutMs = 0,
): Promise<void> {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.replace(/^\//, ''));
  if (!name) throw new Error('DATABASE_URL names no database');
  const probe = new Client({ connectionString: url, connectionTimeoutMillis: connectTimeoutMs });
  try {
    await probe.connect();
    return;
  } catch (err) {
    if ((err as { code?: string }).code !== '3D000') throw err; // 3D000 = invalid_catalog_name
  } finally {
    await probe.end().catch(() => undefined);
  }
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new Client({ connectionString: admin.toString(), connectionTimeoutMillis: connectTimeoutMs });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`);
    logger.log(`Created database ${name}`);
  } catch (err) {
    if ((err as { code?: string }).code !== '42P04') throw err; // created concurrently by another instance
  } finally {
    await client.end();
  }
}

/**
 * Runs pending migrations under an advisory lock, so instances starting together migrate once.
 * Connecting waits at most `connectTimeoutMs` (0 = no bound); statements are not bounded: a
 * migration may legitimately run long, and so may the wait for the lock while another instance migrates.
 */
export async function runMigrations(
  url: string,
  logger = new Logger('Database'),
  connectTimeoutMs = 0,
): Promise<string[]> {
  const ds = new DataSource(buildDataSourceOptions(url, 2, { connectMs: connectTimeoutMs }));
  await ds.initialize();
  try {
    await ds.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    const done = await ds.runMigrations({ transaction: 'each' });
    for (const m of done) logger.log(`Applied migration ${m.name}`);
    return done.map((m) => m.name);
  } finally {
    await ds.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
    await ds.destroy();
  }
}

/** Start-up step shared by the HTTP process, the worker and the CLI. */
export async function prepareDatabase(url: string, migrate: boolean, connectTimeoutMs = 0): Promise<void> {
  const logger = new Logger('Database');
  await ensureDatabase(url, logger, connectTimeoutMs);
  if (migrate) await runMigrations(url, logger, connectTimeoutMs);
}
