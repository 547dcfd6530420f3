import { DataSource, QueryFailedError } from 'typeorm';
import { buildDataSourceOptions } from '../../src/database/data-source-options';
import {
  asyncCommitFromItem,
  installRequestTransactions,
  readRows,
  runInRequestTransaction,
} from '../../src/database/request-transaction';
import { TestEnvironment } from '../support/test-app';

/** Hot-path helpers of src/database/request-transaction.ts, outside and inside a request transaction. */
describe('readRows and asyncCommitFromItem', () => {
  const env = new TestEnvironment();
  let ds: DataSource;

  beforeAll(async () => {
    await env.create();
    ds = await new DataSource(buildDataSourceOptions(env.databaseUrl, 2)).initialize();
    installRequestTransactions(ds);
  });
  afterAll(async () => {
    await ds?.destroy();
    await env.destroy();
  });

  it('returns the rows dataSource.query returns, with the same types', async () => {
    const sql = `SELECT $1::uuid AS id, now() AS at, 3::int AS n, NULL::timestamptz AS none, ARRAY[2, 1]::int[] AS list, $2::text AS t`;
    const params = ['00000000-0000-4000-8000-000000000001', 'x'];
    const direct = await readRows<Record<string, unknown>>(ds, sql, params);
    const viaTypeorm = await ds.query<Array<Record<string, unknown>>>(sql, params);
    expect(direct).toHaveLength(1);
    expect(direct[0].at).toBeInstanceOf(Date);
    expect({ ...direct[0], at: null }).toEqual({ ...viaTypeorm[0], at: null });
  });

  it('inside a request transaction reads through it and sees its uncommitted writes', async () => {
    const name = `read-rows-${Date.now()}`;
    const find = () => readRows<{ name: string }>(ds, 'SELECT name FROM workspaces WHERE name = $1', [name]);
    await expect(
      runInRequestTransaction(ds, async (em) => {
        await em.query('INSERT INTO workspaces (name) VALUES ($1)', [name]);
        expect(await find()).toEqual([{ name }]);
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(await find()).toEqual([]);
  });

  it('fails with QueryFailedError, as dataSource.query does', async () => {
    const err = await readRows(ds, 'SELECT * FROM no_such_table', []).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(QueryFailedError);
    expect((err as QueryFailedError & { code?: string }).driverError).toMatchObject({ code: '42P01' });
  });

  it('asyncCommitFromItem makes an autocommitted UPDATE commit without waiting for the WAL flush, and only it', async () => {
    await ds.query('CREATE TABLE IF NOT EXISTS async_commit_probe (id int PRIMARY KEY, n int NOT NULL)');
    await ds.query('INSERT INTO async_commit_probe VALUES (1, 0) ON CONFLICT (id) DO UPDATE SET n = 0');
    const update = () =>
      ds.query<[Array<{ n: number; commit: string }>, number]>(
        `UPDATE async_commit_probe SET n = n + 1 ${asyncCommitFromItem()} WHERE id = 1
         RETURNING n, current_setting('synchronous_commit') AS commit`,
      );
    expect((await update())[0]).toEqual([{ n: 1, commit: 'off' }]);
    // The setting was the transaction's own: the pooled connections are back to durable commits.
    for (let i = 0; i < 4; i++) {
      expect(await ds.query(`SELECT current_setting('synchronous_commit') AS commit`)).toEqual([{ commit: 'on' }]);
    }
    // Inside a request transaction it adds nothing: the whole transaction commits durably.
    await runInRequestTransaction(ds, async () => {
      expect(asyncCommitFromItem()).toBe('');
      expect((await update())[0]).toEqual([{ n: 2, commit: 'on' }]);
    });
    expect(await ds.query('SELECT n FROM async_commit_probe')).toEqual([{ n: 2 }]);
  });
});
