import { DEFAULT_WEBHOOK_RETRY_SCHEDULE_MS } from '../config/webhooks.config';
import { failingTooLong, parseRetryAfter, retryDelayMs } from './retry-schedule';

describe('webhook retry schedule', () => {
  const policy = { scheduleMs: DEFAULT_WEBHOOK_RETRY_SCHEDULE_MS, jitter: 0.2 };
  const mid = () => 0.5;

  it('follows 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, then gives up', () => {
    const delays = [1, 2, 3, 4, 5, 6, 7].map((n) => retryDelayMs(n, policy, { random: mid }));
    expect(delays).toEqual([5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000]);
    expect(retryDelayMs(8, policy, { random: mid })).toBeNull();
    expect(retryDelayMs(0, policy)).toBeNull();
    const total = delays.reduce((a, b) => a! + b!, 0)!;
    expect(total / 3_600_000).toBeGreaterThan(27); // "over about a day"
  });

  it('spreads each delay by +/- the jitter, never beyond', () => {
    expect(retryDelayMs(1, policy, { random: () => 0 })).toBe(4_000);
    expect(retryDelayMs(1, policy, { random: () => 0.999999 })).toBe(6_000);
    const samples = Array.from({ length: 1000 }, () => retryDelayMs(2, policy)!);
    expect(Math.min(...samples)).toBeGreaterThanOrEqual(240_000);
    expect(Math.max(...samples)).toBeLessThanOrEqual(360_000);
    expect(new Set(samples).size).toBeGreaterThan(100);
    expect(retryDelayMs(1, { ...policy, jitter: 0 })).toBe(5_000);
  });

  it('honours a longer Retry-After, ignores a shorter one and caps it at the longest step', () => {
    expect(retryDelayMs(1, policy, { random: mid, retryAfterMs: 60_000 })).toBe(60_000);
    expect(retryDelayMs(2, policy, { random: mid, retryAfterMs: 60_000 })).toBe(300_000);
    expect(retryDelayMs(1, policy, { random: mid, retryAfterMs: 7 * 24 * 3_600_000 })).toBe(36_000_000);
    expect(retryDelayMs(1, policy, { random: mid, retryAfterMs: null })).toBe(5_000);
  });

  it('parses Retry-After as seconds or as an HTTP date', () => {
    const now = Date.parse('2026-11-21T10:00:00Z');
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
    expect(parseRetryAfter('Sat, 21 Nov 2026 10:05:00 GMT', now)).toBe(300_000);
    expect(parseRetryAfter('Sat, 21 Nov 2026 09:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter(['30', '60'], now)).toBe(30_000);
    expect(parseRetryAfter(undefined, now)).toBeNull();
    expect(parseRetryAfter('', now)).toBeNull();
    expect(parseRetryAfter('-5', now)).toBeNull();
    expect(parseRetryAfter('1.5', now)).toBeNull();
    expect(parseRetryAfter('soon', now)).toBeNull();
  });

  it('disables an endpoint only after failing continuously for the whole window', () => {
    const day = 24 * 3_600_000;
    const now = Date.parse('2026-11-21T10:00:00Z');
    expect(failingTooLong(null, now, 5 * day)).toBe(false);
    expect(failingTooLong(new Date(now - 4 * day), now, 5 * day)).toBe(false);
    expect(failingTooLong(new Date(now - 5 * day), now, 5 * day)).toBe(true);
  });
});
