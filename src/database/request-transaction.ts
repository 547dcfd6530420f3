import { AsyncLocalStorage } from 'node:async_hooks';
import { Logger } from '@nestjs/common';
import { DataSource, EntityManager, QueryRunner, ReplicationMode } from 'typeorm';

interface Scope {
  /** The scope's connection, as handed to TypeORM: `release()` is a no-op until the scope ends. */
  shared: QueryRunner;
  afterCommit: Array<() => Promise<unknown>>;
  /**
   * False once the transaction has ended: a timer or batch started during the request keeps the
   * async context, and must then get ordinary connections rather than the released one.
   */
  open: boolean;
}

const scopes = new AsyncLocalStorage<Scope>();
const installed = new WeakSet<DataSource>();
const logger = new Logger('RequestTransaction');

/**
 * Makes `dataSource.createQueryRunner()` hand out the current scope's connection when called
 * inside `runInRequestTransaction`. Every TypeORM path goes through it (repositories, query
 * builders, `dataSource.query`, `dataSource.transaction`, which then becomes a savepoint), so
 * code inside the scope needs no extra parameter to join the transaction. Outside a scope nothing
 * changes. Installed once by DatabaseModule.
 */
export function installRequestTransactions(dataSource: DataSource): void {
  if (installed.has(dataSource)) return;
  installed.add(dataSource);
  const original = dataSource.createQueryRunner.bind(dataSource);
  dataSource.createQueryRunner = (mode?: ReplicationMode): QueryRunner => {
    const scope = scopes.getStore();
    return scope?.open ? scope.shared : original(mode);
  };
}

/**
 * The connection of the request transaction this async context runs in, if any: for code that
 * queries the driver directly (runPrepared) and must join it like TypeORM's paths do.
 */
export function requestTransactionRunner(): QueryRunner | undefined {
  const scope = scopes.getStore();
  return scope?.open ? scope.shared : undefined;
}

/**
 * Runs `fn` in one transaction on one connection that every query of its async context joins
 * (see installRequestTransactions): commits when `fn` resolves, rolls back when it throws. Then,
 * only after a commit, runs the callbacks registered with `afterCommit`, in order.
 */
export async function runInRequestTransaction<T>(
  dataSource: DataSource,
  fn: (em: EntityManager) => Promise<T>,
): Promise<T> {
  if (!installed.has(dataSource)) throw new Error('installRequestTransactions was not called on this data source');
  if (scopes.getStore()?.open) throw new Error('request transactions do not nest');
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  const shared = new Proxy(runner, {
    get(target, prop) {
      if (prop === 'release') return () => Promise.resolve();
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  const scope: Scope = { shared, afterCommit: [], open: true };
  let result: T;
  try {
    await runner.startTransaction();
    result = await scopes.run(scope, () => fn(runner.manager));
    await runner.commitTransaction();
  } catch (err) {
    if (runner.isTransactionActive) await runner.rollbackTransaction().catch(() => undefined);
    throw err;
  } finally {
    scope.open = false;
    await runner.release();
  }
  for (const callback of scope.afterCommit) {
    await callback().catch((err: Error) => logger.warn(`After-commit work failed: ${err.message}`));
  }
  return result;
}

/**
 * Work that must not happen before the current data is committed (for example pushing a job that
 * a worker will look up): inside a request transaction it waits for the commit (and is dropped on
 * rollback); elsewhere it runs at once. Errors after a commit are logged, not thrown: the
 * database is the record and reconcilers catch up.
 */
export async function afterCommit(callback: () => Promise<unknown>): Promise<void> {
  const scope = scopes.getStore();
  if (scope?.open) scope.afterCommit.push(callback);
  else await callback();
}

/**
 * A FROM item for an autocommitted `UPDATE`: its transaction then commits without waiting for its WAL
 * to reach the disk (`synchronous_commit` off for that transaction only). For bookkeeping a crash may
 * lose because a later step checks it again (an upload's received chunks: finalize names any chunk
 * the database forgot, docs/adr/0004); the row is as consistent as ever, and a later durable commit
 * flushes it too. Inside a request transaction it is empty: the setting would hold for the whole
 * transaction, which must commit durably.
 */
export function asyncCommitFromItem(): string {
  return scopes.getStore()?.open ? '' : "FROM (SELECT set_config('synchronous_commit', 'off', true)) AS async_commit";
}
