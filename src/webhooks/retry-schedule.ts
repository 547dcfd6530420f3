/** How failed deliveries are retried: delays before each retry and their random spread. */
export interface RetryPolicy {
  /** Delay before retry n (index n-1), in ms; its length is the number of retries. */
  scheduleMs: number[];
  /** Random spread of each delay: 0.2 = +/-20%. */
  jitter: number;
}

/**
 * Delay before the next attempt after failed attempt `attempt` (1 = the first), or null when the
 * schedule is exhausted. The scheduled delay gets +/-jitter; a `Retry-After` from the receiver
 * wins when it is longer, capped at the longest step of the schedule so a receiver cannot park
 * a delivery for longer than the schedule itself would.
 */
export function retryDelayMs(
  attempt: number,
  policy: RetryPolicy,
  opts: { retryAfterMs?: number | null; random?: () => number } = {},
): number | null {
  if (!Number.isInteger(attempt) || attempt < 1 || attempt > policy.scheduleMs.length) return null;
  const base = policy.scheduleMs[attempt - 1];
  const random = opts.random ?? Math.random;
  const jittered = Math.max(0, Math.round(base * (1 + policy.jitter * (2 * random() - 1))));
  if (opts.retryAfterMs === undefined || opts.retryAfterMs === null) return jittered;
  const cap = Math.max(...policy.scheduleMs);
  return Math.max(jittered, Math.min(opts.retryAfterMs, cap));
}

/**
 * `Retry-After` as milliseconds from `nowMs`: delay-seconds (`120`) or an HTTP date
 * (`Wed, 21 Oct 2026 07:28:00 GMT`). Null when absent or unparseable; a date in the past is 0.
 */
export function parseRetryAfter(value: string | string[] | undefined, nowMs: number): number | null {
  const raw = (Array.isArray(value) ? value[0] : value)?.trim();
  if (!raw) return null;
  if (/^\d+$/.test(raw)) return Number(raw) * 1000;
  if (!/[a-z]/i.test(raw)) return null;
  const at = Date.parse(raw);
  if (Number.isNaN(at)) return null;
  return Math.max(0, at - nowMs);
}

/** An endpoint is disabled once its attempts have failed without a success for `disableAfterMs`. */
export function failingTooLong(failingSince: Date | null, nowMs: number, disableAfterMs: number): boolean {
  return failingSince !== null && nowMs - failingSince.getTime() >= disableAfterMs;
}
