import { DataSource, EntityTarget, ObjectLiteral } from 'typeorm';
import { buildDataSourceOptions } from '../../src/database/data-source-options';
import { POST_COLUMNS, TARGET_COLUMNS, toPost, toTarget } from '../../src/posts/post-rows';
import { PostTarget } from '../../src/posts/post-target.entity';
import { Post } from '../../src/posts/post.entity';
import { TestEnvironment } from '../support/test-app';

/**
 * Raw SQL on hot paths names columns and maps rows by hand (docs/adr/0010). These checks hold the
 * column lists and mappers to the entity metadata, so renaming a column or property breaks a test
 * instead of production.
 */
describe('raw-row mappings match the entity metadata', () => {
  const env = new TestEnvironment();
  let ds: DataSource;

  beforeAll(async () => {
    await env.create();
    ds = await new DataSource(buildDataSourceOptions(env.databaseUrl, 2)).initialize();
  });
  afterAll(async () => {
    await ds?.destroy();
    await env.destroy();
  });

  function expectMapping<T extends ObjectLiteral>(
    entity: EntityTarget<T>,
    columnList: string,
    map: (row: Record<string, unknown>) => T,
  ): void {
    const columns = ds.getMetadata(entity).columns.filter((c) => !c.relationMetadata || c.referencedColumn);
    const listed = columnList.split(',').map((c) => c.trim());
    // Every column of the table, each once, by its database name.
    expect([...listed].sort()).toEqual(columns.map((c) => c.databaseName).sort());
    // The mapper puts each column into the property the entity declares for it.
    const row = Object.fromEntries(columns.map((c, i) => [c.databaseName, `value-${i}`]));
    const mapped = map(row) as Record<string, unknown>;
    for (const [i, c] of columns.entries())
      expect({ [c.propertyName]: mapped[c.propertyName] }).toEqual({ [c.propertyName]: `value-${i}` });
  }

  it('posts: POST_COLUMNS and toPost', () => expectMapping(Post, POST_COLUMNS, toPost));
  it('post_targets: TARGET_COLUMNS and toTarget', () => expectMapping(PostTarget, TARGET_COLUMNS, toTarget));
});
