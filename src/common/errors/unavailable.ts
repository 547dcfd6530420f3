/**
 * Whether an error means the database (or another dependency's connection) cannot serve right now,
 * rather than a bug: the request may succeed if retried later, so it is answered 503
 * SERVICE_UNAVAILABLE with Retry-After, not 500. Recognizes the error as pg, pg-pool and Node raise
 * it, or as TypeORM wraps it (`driverError`).
 */

/** Network errors of a connection: refused, reset, timed out, unreachable. */
const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/**
 * SQLSTATEs of a server that cannot serve now: connection exceptions (class 08), the server shutting
 * down or starting (57P01-57P03), too many connections (53300), a statement cancelled by
 * statement_timeout (57014), a session ended by idle_in_transaction_session_timeout (25P03).
 */
const UNAVAILABLE_SQLSTATE = /^(08...|57P0[123]|53300|57014|25P03)$/;

/** pg and pg-pool raise these without a code. */
const CONNECTION_MESSAGES = [
  /^Connection terminated/,
  /^timeout exceeded when trying to connect$/,
  /is not queryable$/,
  /^Client was closed and is not queryable$/,
  /^Query read timeout$/,
  /^timeout expired$/,
];

/** What the request can be told: the database did not answer in time, or cannot be reached. */
export type Unavailability = 'timeout' | 'unreachable';

export function dependencyUnavailability(e: unknown): Unavailability | null {
  const err = e as { code?: unknown; message?: unknown; driverError?: unknown } | null;
  if (!err || typeof err !== 'object') return null;
  for (const candidate of [err.driverError, err] as Array<{ code?: unknown; message?: unknown } | undefined>) {
    if (!candidate || typeof candidate !== 'object') continue;
    const code = typeof candidate.code === 'string' ? candidate.code : '';
    const message = typeof candidate.message === 'string' ? candidate.message : '';
    const unavailable =
      UNAVAILABLE_SQLSTATE.test(code) || CONNECTION_CODES.has(code) || CONNECTION_MESSAGES.some((m) => m.test(message));
    if (!unavailable) continue;
    const timedOut =
      code === '57014' || code === 'ETIMEDOUT' || (!UNAVAILABLE_SQLSTATE.test(code) && /timeout/i.test(message));
    return timedOut ? 'timeout' : 'unreachable';
  }
  return null;
}
