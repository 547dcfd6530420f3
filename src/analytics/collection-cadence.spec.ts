import { COLLECT_FOR_MS, nextCollectAt } from './collection-cadence';

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
const published = new Date('2026-11-01T00:00:00.000Z');
const at = (ms: number) => new Date(published.getTime() + ms);
const step = (ageMs: number, intervalMs = 5 * MIN) => {
  const next = nextCollectAt(published, at(ageMs), intervalMs);
  return next === null ? null : next.getTime() - at(ageMs).getTime();
};

describe('nextCollectAt', () => {
  it('is due again at the next run during the first day', () => {
    expect(step(0)).toBe(4.5 * MIN);
    expect(step(23 * HOUR)).toBe(4.5 * MIN);
  });

  it('is hourly from day 1 to day 7 and daily from day 7 to day 30', () => {
    expect(step(DAY)).toBe(HOUR - MIN);
    expect(step(6 * DAY)).toBe(HOUR - MIN);
    expect(step(7 * DAY)).toBe(DAY - MIN);
    expect(step(20 * DAY)).toBe(DAY - MIN);
  });

  it('never waits less than the run interval', () => {
    expect(step(2 * DAY, 2 * HOUR)).toBe(2 * HOUR - MIN);
  });

  it('reads one last time at the 30-day mark, then stops', () => {
    expect(nextCollectAt(published, at(29.5 * DAY), 5 * MIN)).toEqual(at(COLLECT_FOR_MS));
    expect(nextCollectAt(published, at(COLLECT_FOR_MS), 5 * MIN)).toBeNull();
    expect(nextCollectAt(published, at(40 * DAY), 5 * MIN)).toBeNull();
  });
});
