import { ValidationOptions, isURL, registerDecorator } from 'class-validator';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Ids are UUIDs; anything else cannot name a row, so lookups answer 404 without a query. */
export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID.test(value);
}

/**
 * RFC 3339 date-time with a zone (`Z` or `+hh:mm`); a time without zone is refused. Years run from
 * 0001 to 9999 (four digits, and year 0 does not exist in Postgres).
 */
export const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/i;

export function isRfc3339(value: unknown): value is string {
  return (
    typeof value === 'string' && RFC3339.test(value) && !value.startsWith('0000') && !Number.isNaN(Date.parse(value))
  );
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

/**
 * An absolute http(s) URL that both class-validator's `isURL` and the WHATWG URL parser (which
 * every outbound call uses) accept: `https://[fe80::1%25eth0]/` passes the first and not the second.
 */
export function isHttpUrl(value: unknown): value is string {
  if (typeof value !== 'string' || !isURL(value, HTTP_URL_OPTIONS)) return false;
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

const HTTP_URL_OPTIONS = {
  require_tld: false,
  require_protocol: true,
  protocols: ['http', 'https'],
  allow_underscores: true,
};

export function IsHttpUrl(options?: ValidationOptions): PropertyDecorator {
  return (target: object, propertyName: string | symbol) =>
    registerDecorator({
      name: 'isHttpUrl',
      target: target.constructor,
      propertyName: String(propertyName),
      options: { message: 'must be an http(s) URL', ...options },
      validator: { validate: isHttpUrl },
    });
}
