import type { Pool, PoolClient } from 'pg';
import { DataSource, EntityManager, QueryFailedError } from 'typeorm';
import { requestTransactionRunner } from './request-transaction';

/**
 * Runs a statement of a measured hot path on the pg connection directly and returns its rows: one
 * layer less per statement than TypeORM's query runner (its logging, broadcaster and result shaping),
 * but the same behaviour around it. It runs on the transaction's connection when `on` is a
 * transaction's EntityManager or the call is inside a request transaction (request-transaction.ts),
 * else on a pooled connection, and fails like TypeORM: a QueryFailedError carrying the driver's error
 * (SQLSTATE in `driverError.code`), logged by the data source's logger.
 *
 * Postgres plans the statement at every call for the values given (a custom plan), like TypeORM's
 * queries. See runPrepared for the few statements whose generic plan is safe to keep.
 */
export function runSql<R = Record<string, unknown>>(
  on: DataSource | EntityManager,
  text: string,
  params: unknown[],
): Promise<R[]> {
  return run<R>(on, undefined, text, params);
}

/**
 * Like runSql, as a named prepared statement: parsed once per connection, and after five runs
 * executed with one generic plan (Postgres's default plan_cache_mode), with no planning at all.
 * Only for statements whose generic plan does not depend on the size of the tables when it was made:
 * a plan made while a table was small is kept as the table grows until an ANALYZE invalidates it
 * (measured on a server without autovacuum: the publisher's outcome UPDATE joined to unnest() became
 * a hash join over every pending target, 2.0 -> 3.4 ms per batch). A name stands for one text in the
 * whole process (pg refuses a known name with another text); use `<module>.<statement>`.
 */
export function runPrepared<R = Record<string, unknown>>(
  on: DataSource | EntityManager,
  name: string,
  text: string,
  params: unknown[],
): Promise<R[]> {
  return run<R>(on, name, text, params);
}

async function run<R>(
  on: DataSource | EntityManager,
  name: string | undefined,
  text: string,
  params: unknown[],
): Promise<R[]> {
  const dataSource = on instanceof DataSource ? on : on.connection;
  // Inside a request transaction (Idempotency-Key), on its connection, as TypeORM's own paths are.
  const runner = (on instanceof DataSource ? undefined : on.queryRunner) ?? requestTransactionRunner();
  try {
    const target: Pool | PoolClient = runner
      ? ((await runner.connect()) as PoolClient)
      : (dataSource.driver as unknown as { master: Pool }).master;
    // Text and values as two arguments when unnamed: pg copies a config object property by property
    // (cloneQueryConfig) into a slow-mode object before every query.
    const result = name
      ? await target.query<R & object>({ name, text, values: params })
      : await target.query<R & object>(text, params);
    return result.rows;
  } catch (err) {
    dataSource.logger.logQueryError(err as Error, text, params);
    throw new QueryFailedError(text, params, err as Error);
  }
}
