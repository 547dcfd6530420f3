import { TestApp } from '../support/test-app';

describe('migrations and entities', () => {
  it('leave no drift: generating a migration from the entities finds nothing to do', async () => {
    const t = await TestApp.start({ role: 'api' });
    try {
      const sql = await t.dataSource.driver.createSchemaBuilder().log();
      expect(sql.upQueries.map((q) => q.query)).toEqual([]);
    } finally {
      await t.close();
    }
  });
});
