const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** Collection stops this long after publication. */
export const COLLECT_FOR_MS = 30 * DAY;

/**
 * When a target published at `publishedAt` and read at `runStartedAt` is due again; null when
 * collection has stopped. Every run during the first day, hourly until day 7, daily until day 30,
 * with one last read at the 30-day mark. The step is shortened by 10% (at most a minute) so that a
 * run starting one period later finds the target due despite timer jitter.
 */
export function nextCollectAt(publishedAt: Date, runStartedAt: Date, intervalMs: number): Date | null {
  const published = publishedAt.getTime();
  const now = runStartedAt.getTime();
  const age = now - published;
  if (age >= COLLECT_FOR_MS) return null;
  const step = age < DAY ? intervalMs : age < 7 * DAY ? Math.max(HOUR, intervalMs) : Math.max(DAY, intervalMs);
  const next = now + step - Math.min(step * 0.1, 60_000);
  return new Date(Math.min(next, published + COLLECT_FOR_MS));
}
