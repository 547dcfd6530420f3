import { ValidationOptions, isURL, registerDecorator } from 'class-validator';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Ids are UUIDs; anything else cannot name a row, so lookups answer 404 without a query. */
export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID.test(value);
}

/**
 * RFC 3339 date-time with a zone (`Z` or `+hh:mm`); a time without zone is refused. The parts are
 * checked against the calendar (no 30 February), offsets are those of real time zones (-14:00 to
 * +14:00; Postgres refuses beyond 15:59), and the instant lies in years 0001 to 9999 UTC, which both
 * Postgres and JavaScript hold. JavaScript's Date.parse is no check: it rolls 2026-02-30 over into
 * March and takes any offset up to 23:59.
 */
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?(?:(Z)|([+-])(\d{2}):(\d{2}))$/i;

const RFC3339_MESSAGE = 'must be an RFC 3339 date-time with a time zone, e.g. 2026-11-21T10:00:00Z';
const FIRST_INSTANT = Date.parse('0001-01-01T00:00:00Z');
const LAST_INSTANT = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/**
 * Why `value` is not a date-time this service takes, as a validation message (`must be ...`), or
 * null when it is one. Shared by every date field and by the cursors of every list.
 */
export function rfc3339Problem(value: unknown): string | null {
  const m = typeof value === 'string' ? RFC3339.exec(value) : null;
  if (!m) return RFC3339_MESSAGE;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) {
    return `must be a date on the calendar (${m[1]}-${m[2]}-${m[3]} is not)`;
  }
  if (hour > 23 || minute > 59 || second > 59) return `must have a time of day from 00:00:00 to 23:59:59`;
  let offsetMinutes = 0;
  if (!m[8]) {
    const [hh, mm] = [Number(m[10]), Number(m[11])];
    if (mm > 59 || hh * 60 + mm > 14 * 60) return 'must have a time zone offset from -14:00 to +14:00';
    offsetMinutes = (m[9] === '-' ? -1 : 1) * (hh * 60 + mm);
  }
  const local = new Date(0);
  local.setUTCFullYear(year, month - 1, day); // Date.UTC would read years 0-99 as 1900-1999
  local.setUTCHours(hour, minute, second, 0);
  const instant = local.getTime() - offsetMinutes * 60_000;
  if (instant < FIRST_INSTANT || instant > LAST_INSTANT) return 'must lie between the years 0001 and 9999 (UTC)';
  return null;
}

export function isRfc3339(value: unknown): value is string {
  return rfc3339Problem(value) === null;
}

export function IsRfc3339(options?: ValidationOptions): PropertyDecorator {
  return (target: object, propertyName: string | symbol) =>
    registerDecorator({
      name: 'isRfc3339',
      target: target.constructor,
      propertyName: String(propertyName),
      options: { message: (args) => rfc3339Problem(args.value) ?? RFC3339_MESSAGE, ...options },
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
