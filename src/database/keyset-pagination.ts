import { ObjectLiteral, SelectQueryBuilder } from 'typeorm';
import { decodeTimeCursor, encodeTimeCursor, Page } from '../common/pagination/pagination';

/**
 * SQL that renders a timestamptz column as a cursor timestamp at full (microsecond) precision.
 * Lists select it beside their rows and put it in `nextCursor` instead of the JavaScript Date,
 * which holds milliseconds only.
 */
export function cursorTimeSql(column: string): string {
  return `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
}

export interface KeysetOptions {
  /** SQL expression of the sort column, e.g. `k.created_at`: a NOT NULL timestamptz. */
  sortColumn: string;
  /** SQL expression of the tie-breaker, e.g. `k.id`. */
  idColumn: string;
  direction: 'ASC' | 'DESC';
  limit: number;
  cursor?: string;
}

/**
 * Keyset pagination (no OFFSET): orders by (sort, id) and continues strictly after the cursor's
 * row, so pages stay stable while rows are inserted concurrently. The cursor's time is read from
 * the database at full precision, never from the entity's millisecond Date.
 */
export async function paginate<E extends ObjectLiteral & { id: string }>(
  qb: SelectQueryBuilder<E>,
  opts: KeysetOptions,
): Promise<Page<E>> {
  if (opts.cursor) {
    const { at, id } = decodeTimeCursor(opts.cursor);
    const op = opts.direction === 'DESC' ? '<' : '>';
    qb.andWhere(
      `(${opts.sortColumn}, ${opts.idColumn}) ${op} (CAST(:cursorAt AS timestamptz), CAST(:cursorId AS uuid))`,
      {
        cursorAt: at,
        cursorId: id,
      },
    );
  }
  qb.addSelect(cursorTimeSql(opts.sortColumn), 'keyset_cursor_at')
    .orderBy(opts.sortColumn, opts.direction)
    .addOrderBy(opts.idColumn, opts.direction)
    .limit(opts.limit + 1);
  const { entities, raw } = await qb.getRawAndEntities<{ keyset_cursor_at: string }>();
  if (entities.length !== raw.length) throw new Error('paginate: rows and entities differ (a join multiplied rows)');
  const more = entities.length > opts.limit;
  const data = more ? entities.slice(0, opts.limit) : entities;
  const last = data[data.length - 1];
  const lastAt = raw[data.length - 1]?.keyset_cursor_at;
  return { data, nextCursor: more && last && lastAt ? encodeTimeCursor(lastAt, last.id) : null };
}
