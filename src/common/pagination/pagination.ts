import { applyDecorators, Type as ClassType } from '@nestjs/common';
import { ApiExtraModels, ApiOkResponse, getSchemaPath } from '@nestjs/swagger';
import { ObjectLiteral, SelectQueryBuilder } from 'typeorm';
import { AppError } from '../errors';
import { isUuid, rfc3339Problem } from '../validators';

export { PageQueryDto } from './page-query.dto';

export interface Page<T> {
  data: T[];
  nextCursor: string | null;
}

type CursorValue = string | number | null;

export function encodeCursor(values: CursorValue[]): string {
  return Buffer.from(JSON.stringify(values)).toString('base64url');
}

export function decodeCursor(cursor: string, arity: number): CursorValue[] {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (
      Array.isArray(parsed) &&
      parsed.length === arity &&
      parsed.every((v) => v === null || typeof v === 'string' || typeof v === 'number')
    ) {
      return parsed as CursorValue[];
    }
  } catch {
    // fall through
  }
  throw invalidCursor();
}

/**
 * A time cursor's timestamp: ISO 8601 UTC with up to microseconds, a date on the calendar in years
 * 0001 to 9999 (rfc3339Problem, the check every date field gets). Cursors carry the database's full
 * precision, so rows created within the same millisecond are neither skipped nor repeated.
 */
const CURSOR_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?Z$/;

/**
 * SQL that renders a timestamptz column as a cursor timestamp at full (microsecond) precision.
 * Lists select it beside their rows and put it in `nextCursor` instead of the JavaScript Date,
 * which holds milliseconds only.
 */
export function cursorTimeSql(column: string): string {
  return `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
}

function invalidCursor(): AppError {
  return new AppError('VALIDATION_ERROR', 'Invalid cursor', [
    { field: 'cursor', message: 'is not a cursor this endpoint issued' },
  ]);
}

/**
 * A cursor of [timestamp, UUID], as issued by the time-ordered lists. `at` stays a string: pass it
 * to SQL as `$n::timestamptz` so no precision is lost on the way.
 */
export function decodeTimeCursor(cursor: string): { at: string; id: string } {
  const [at, id] = decodeCursor(cursor, 2);
  if (typeof at !== 'string' || !CURSOR_TIME.test(at) || rfc3339Problem(at) !== null || !isUuid(id)) {
    throw invalidCursor();
  }
  return { at, id };
}

export function encodeTimeCursor(at: string, id: string): string {
  return encodeCursor([at, id]);
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

/** Documents `200 {data: Item[], nextCursor}` for a list operation. */
export function ApiPageResponse(item: ClassType<unknown>, description = 'One page of results') {
  return applyDecorators(
    ApiExtraModels(item),
    ApiOkResponse({
      description,
      schema: {
        type: 'object',
        required: ['data', 'nextCursor'],
        properties: {
          data: { type: 'array', items: { $ref: getSchemaPath(item) } },
          nextCursor: {
            type: 'string',
            nullable: true,
            description: 'Pass as `cursor` for the next page; null on the last page',
          },
        },
      },
    }),
  );
}
