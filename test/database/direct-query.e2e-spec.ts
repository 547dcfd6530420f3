import { DataSource, QueryFailedError } from 'typeorm';
import { buildDataSourceOptions } from '../../src/database/data-source-options';
import { runPrepared, runSql } from '../../src/database/direct-query';
import { installRequestTransactions, runInRequestTransaction } from '../../src/database/request-transaction';
import { DEFAULT_ORGANIZATION_ID } from '../../src/auth/organization.entity';
import { TestEnvironment } from '../support/test-environment';

/** runSql and runPrepared (hot paths on the pg connection) join the transaction they run in, and fail like TypeORM. */
describe('runSql and runPrepared', () => {
  const env = new TestEnvironment();
  let ds: DataSource;
  const byName = (name: string) =>
    runPrepared<{ id: string }>(ds, 'test.workspace-by-name', `SELECT id FROM workspaces WHERE name = $1`, [name]);

  beforeAll(async () => {
    await env.create();
    ds = await new DataSource(buildDataSourceOptions(env.databaseUrl, 3)).initialize();
    installRequestTransactions(ds);
  });
  afterAll(async () => {
    await ds?.destroy();
    await env.destroy();
  });

  it('runs a named statement again and again on pooled connections', async () => {
    await ds.query(
      `INSERT INTO workspaces (name, organization_id) VALUES ('prepared-a', '${DEFAULT_ORGANIZATION_ID}')`,
    );
    for (let i = 0; i < 8; i++) expect(await byName('prepared-a')).toHaveLength(1);
    expect(await byName('nobody')).toEqual([]);
  });

  it("sees what a transaction wrote when given the transaction's EntityManager", async () => {
    await ds.transaction(async (em) => {
      await em.query(
        `INSERT INTO workspaces (name, organization_id) VALUES ('prepared-b', '${DEFAULT_ORGANIZATION_ID}')`,
      );
      const rows = await runPrepared(em, 'test.workspace-by-name', `SELECT id FROM workspaces WHERE name = $1`, [
        'prepared-b',
      ]);
      expect(rows).toHaveLength(1);
    });
  });

  it('joins the request transaction it is called in, so its rollback takes what the statement wrote', async () => {
    await expect(
      runInRequestTransaction(ds, async (em) => {
        await em.query(
          `INSERT INTO workspaces (name, organization_id) VALUES ('prepared-c', '${DEFAULT_ORGANIZATION_ID}')`,
        );
        expect(await byName('prepared-c')).toHaveLength(1); // the request's own uncommitted row
        await runSql(ds, `INSERT INTO workspaces (name, organization_id) VALUES ($1, $2)`, [
          'prepared-d',
          DEFAULT_ORGANIZATION_ID,
        ]);
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(await byName('prepared-c')).toEqual([]);
    expect(await byName('prepared-d')).toEqual([]);
  });

  it("fails with TypeORM's QueryFailedError carrying the SQLSTATE", async () => {
    await expect(runSql(ds, `SELECT id FROM workspaces WHERE id = $1::uuid`, ['not-a-uuid'])).rejects.toMatchObject({
      driverError: { code: '22P02' },
    });
    const failure = runPrepared(ds, 'test.workspace-by-id', `SELECT id FROM workspaces WHERE id = $1::uuid`, [
      'not-a-uuid',
    ]);
    await expect(failure).rejects.toBeInstanceOf(QueryFailedError);
    await expect(failure).rejects.toMatchObject({ driverError: { code: '22P02' } });
  });
});
