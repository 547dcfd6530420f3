import { applyDecorators, Type as ClassType } from '@nestjs/common';
import { ApiExtraModels, ApiOkResponse, getSchemaPath } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { ObjectLiteral, SelectQueryBuilder } from 'typeorm';
import { AppError } from '../errors';
import { isUuid } from '../validators';

/** `limit` and `cursor` of every list endpoint (API.md section 5). */
export class PageQueryDto {
  /** Page size, 1 to 100. */
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100)
  limit: number = 20;

  /** Opaque cursor from the previous page's `nextCursor`. */
  @IsOptional()
  @IsString()
  @MaxLength(512)
  cursor?: string;
}

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
  throw new AppError('VALIDATION_ERROR', 'Invalid cursor', [
    { field: 'cursor', message: 'is not a cursor this endpoint issued' },
  ]);
}

/** A cursor of [ISO timestamp, UUID], as issued by the time-ordered lists. */
export function decodeTimeCursor(cursor: string): { at: Date; id: string } {
  const [value, id] = decodeCursor(cursor, 2);
  if (typeof value !== 'string' || !isUuid(id) || Number.isNaN(Date.parse(value))) {
    throw new AppError('VALIDATION_ERROR', 'Invalid cursor', [
      { field: 'cursor', message: 'is not a cursor this endpoint issued' },
    ]);
  }
  return { at: new Date(value), id };
}

export interface KeysetOptions<E> {
  /** SQL expression of the sort column, e.g. `k.created_at`: a NOT NULL timestamp. */
  sortColumn: string;
  /** SQL expression of the tie-breaker, e.g. `k.id`. */
  idColumn: string;
  direction: 'ASC' | 'DESC';
  limit: number;
  cursor?: string;
  /** The cursor values of a row: [sort value, id]. */
  cursorOf: (row: E) => [CursorValue, string];
}

/**
 * Keyset pagination (no OFFSET): orders by (sort, id) and continues strictly after the cursor's
 * row, so pages stay stable while rows are inserted concurrently.
 */
export async function paginate<E extends ObjectLiteral>(
  qb: SelectQueryBuilder<E>,
  opts: KeysetOptions<E>,
): Promise<Page<E>> {
  if (opts.cursor) {
    const { at: value, id } = decodeTimeCursor(opts.cursor);
    const op = opts.direction === 'DESC' ? '<' : '>';
    qb.andWhere(`(${opts.sortColumn}, ${opts.idColumn}) ${op} (:cursorValue, :cursorId)`, {
      cursorValue: value,
      cursorId: id,
    });
  }
  qb.orderBy(opts.sortColumn, opts.direction)
    .addOrderBy(opts.idColumn, opts.direction)
    .limit(opts.limit + 1);
  const rows = await qb.getMany();
  const more = rows.length > opts.limit;
  const data = more ? rows.slice(0, opts.limit) : rows;
  const last = data[data.length - 1];
  return { data, nextCursor: more && last ? encodeCursor(opts.cursorOf(last)) : null };
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
