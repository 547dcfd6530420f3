import { DataSource } from 'typeorm';
import { buildDataSourceOptions } from '../../src/database/data-source-options';
import {
  asyncCommitFromItem,
  installRequestTransactions,
  runInRequestTransaction,
} from '../../src/database/request-transaction';
import { TestEnvironment } from '../support/test-app';

/** asyncCommitFromItem (src/database/request-transaction.ts), outside and inside a request transaction. */
describe('asyncCommitFromItem', () => {
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
