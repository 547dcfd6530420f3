import { ValidationOptions, registerDecorator } from 'class-validator';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Ids are UUIDs; anything else cannot name a row, so lookups answer 404 without a query. */
export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID.test(value);
}

/** RFC 3339 date-time with a zone (`Z` or `+hh:mm`); a time without zone is refused. */
export const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/i;

export function isRfc3339(value: unknown): value is string {
  return typeof value === 'string' && RFC3339.test(value) && !Number.isNaN(Date.parse(value));
}

export function IsRfc3339(options?: ValidationOptions): PropertyDecorator {
  return (target: object, propertyName: string | symbol) =>
    registerDecorator({
      name: 'isRfc3339',
      target: target.constructor,
      propertyName: String(propertyName),
      options: { message: 'must be an RFC 3339 date-time with a time zone, e.g. 2026-11-21T10:00:00Z', ...options },
      validator: { validate: isRfc3339 },
    });
}
