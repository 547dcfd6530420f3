import type { Pool, PoolClient } from 'pg';
import { DataSource, EntityManager, QueryFailedError } from 'typeorm';
import { requestTransactionRunner } from './request-transaction';

/**
 * Runs a statement of a measured hot path as a named prepared statement and returns its rows:
 * Postgres parses and plans it once per connection instead of at every call (planning was 15 to 30 %
 * of the Postgres time of the publisher's batch statements). A name stands for one text in the whole
 * process (pg refuses a known name with another text); use `<module>.<statement>`.
 *
 * It runs on the transaction's connection when `on` is a transaction's EntityManager or the call is
 * inside a request transaction (request-transaction.ts), else on a pooled connection. It bypasses
 * TypeORM's query runner (one layer less per statement) but fails like it: a QueryFailedError
 * carrying the driver's error (SQLSTATE in `driverError.code`), logged by the data source's logger.
 */
export async function runPrepared<R = Record<string, unknown>>(
  on: DataSource | EntityManager,
  name: string,
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
    const result = await target.query<R & object>({ name, text, values: params });
    return result.rows;
  } catch (err) {
    dataSource.logger.logQueryError(err as Error, text, params);
    throw new QueryFailedError(text, params, err as Error);
  }
}
