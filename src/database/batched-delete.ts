/** Runs one SQL statement. */
type Query = (sql: string, params: unknown[]) => Promise<unknown>;

/**
 * Deletes rows in batches of `batchSize`, each batch one short statement (its own transaction), until
 * fewer than a batch remain or `stop()` says so. `selectIds` is a `SELECT <key> FROM <table> WHERE ...` whose
 * last two parameters are appended here as `LIMIT $n FOR UPDATE SKIP LOCKED`: rows another transaction
 * holds are skipped (the next run takes them), so pruning never waits on, or blocks, a hot row.
 * `key` is the table's primary key column (`id` unless named). Returns the number of rows deleted.
 */
export async function deleteInBatches(
  query: Query,
  table: string,
  selectIds: string,
  params: unknown[],
  batchSize: number,
  stop: () => boolean = () => false,
  key = 'id',
): Promise<number> {
  const limit = params.length + 1;
  const sql = `DELETE FROM ${table} WHERE ${key} IN (${selectIds} LIMIT $${limit} FOR UPDATE SKIP LOCKED)`;
  let total = 0;
  for (;;) {
    // TypeORM answers a DELETE with [rows, affected].
    const [, affected] = (await query(sql, [...params, batchSize])) as [unknown, number];
    total += affected;
    if (affected < batchSize || stop()) return total;
  }
}
