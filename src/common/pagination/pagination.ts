import { applyDecorators, Type as ClassType } from '@nestjs/common';
import { ApiExtraModels, ApiOkResponse, getSchemaPath } from '@nestjs/swagger';
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
