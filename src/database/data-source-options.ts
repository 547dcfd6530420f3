import { join } from 'node:path';
import { DataSourceOptions } from 'typeorm';
import type { DatabaseTimeouts } from '../config/database.config';
import { DatabaseProbe, DeadlineClient } from './deadline-client';
import { SnakeNamingStrategy } from './snake-naming.strategy';

/** Where compiled (dist) or source (ts-jest) entity and migration files live. */
const ROOT = join(__dirname, '..', '..');

/** TCP keepalive probes start after this long without traffic on a pooled connection. */
const KEEPALIVE_DELAY_MS = 10_000;

/**
 * pg options that bound every wait on Postgres: connecting and taking a pooled connection
 * (`connectionTimeoutMillis`, used by both the client and the pool), a statement (`statement_timeout`,
 * cancelled by the server), an idle transaction (`idle_in_transaction_session_timeout`), and the
 * answer to a query (DeadlineClient drops a connection whose server stopped answering), and a wait longer
 * than the probe timeout (DatabaseProbe checks the server on a new connection). A bound left
 * out (or 0) is not applied: the migrations bound connecting only, as a migration may run long.
 */
export function pgConnectionOptions(timeouts: Partial<DatabaseTimeouts> = {}): Record<string, unknown> {
  const { connectMs, statementMs, queryMs, idleInTransactionMs, probeMs } = timeouts;
  return {
    keepAlive: true,
    keepAliveInitialDelayMillis: KEEPALIVE_DELAY_MS,
    ...(connectMs ? { connectionTimeoutMillis: connectMs } : {}),
    ...(statementMs ? { statement_timeout: statementMs } : {}),
    ...(idleInTransactionMs ? { idle_in_transaction_session_timeout: idleInTransactionMs } : {}),
    ...(queryMs ? { Client: DeadlineClient, queryDeadlineMs: queryMs } : {}),
    // One probe per pool (pg-pool hands the same options to each of its clients).
    ...(queryMs && probeMs ? { databaseProbe: new DatabaseProbe(probeMs) } : {}),
  };
}

/**
 * One definition of the connection for the app, the CLI, the tests and the TypeORM CLI. `timeouts`
 * bound the waits on Postgres (all of them for the service's pools); without them nothing is bounded
 * (the TypeORM CLI).
 */
export function buildDataSourceOptions(
  url: string,
  poolSize = 20,
  timeouts?: Partial<DatabaseTimeouts>,
): DataSourceOptions {
  return {
    type: 'postgres',
    url,
    entities: [join(ROOT, 'src', '**', '*.entity.{ts,js}')],
    migrations: [join(ROOT, 'migrations', '*.{ts,js}')],
    migrationsTableName: 'migrations',
    migrationsTransactionMode: 'each',
    synchronize: false,
    uuidExtension: 'pgcrypto',
    installExtensions: false,
    migrationsRun: false,
    namingStrategy: new SnakeNamingStrategy(),
    extra: { max: poolSize, application_name: 'social-publishing', ...pgConnectionOptions(timeouts) },
    logging: ['error'],
  };
}
