import { DataSource, QueryFailedError } from 'typeorm';
import { buildDataSourceOptions } from '../../src/database/data-source-options';
import { installRequestTransactions, readRows, runInRequestTransaction } from '../../src/database/request-transaction';
import { TestEnvironment } from '../support/test-app';

/** readRows: the pool directly outside a request transaction, the transaction's connection inside one. */
describe('readRows', () => {
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
    const viaTypeorm = (await ds.query(sql, params)) as Array<Record<string, unknown>>;
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
});
