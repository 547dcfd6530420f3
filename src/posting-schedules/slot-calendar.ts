/**
 * Posting slots as instants: a weekly schedule ("mon 09:00, Europe/Berlin") turned into the UTC
 * instants it names, across daylight-saving changes. Pure functions over the runtime's ICU time zone
 * data (`Intl.DateTimeFormat` with an explicit `timeZone`): nothing here reads the process's own
 * zone (`TZ`) or the Date object's local-time methods. See docs/adr/0032-posting-schedules.md.
 *
 * A local time W of a day maps to the first instant at which the zone's wall clock reads W or later:
 * - W occurs once: that instant;
 * - W occurs twice (clocks set back in autumn): the first occurrence (the earlier instant, still on
 *   summer time);
 * - W does not occur (clocks set forward in spring): the moment the clocks jump, the first valid
 *   instant after it (02:30 on the spring-forward day of New York publishes at 03:00 EDT).
 * The mapping never decreases with W, so a schedule yields its instants in order; two slots that land
 * on the same instant (two times in one gap, or a gap time and the time the clocks jump to) give it once.
 */

export const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

/** A weekly posting slot: a day of the week and a local wall-clock time `HH:MM` (24 h). */
export interface WeeklySlot {
  day: Weekday;
  time: string;
}

/** Most slots a schedule holds: every half hour of every day. */
export const MAX_SLOTS = 7 * 48;

/** `HH:MM`, 00:00 to 23:59. */
export const SLOT_TIME = /^([01]\d|2[0-3]):[0-5]\d$/;

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
/** Every zone's offset lies within +-14 h; a margin beyond it bounds every search. */
const MAX_OFFSET = 15 * HOUR;
const SCAN_STEP = 15 * MINUTE;

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(zone, f);
  }
  return f;
}

/**
 * Whether the runtime's ICU data knows `zone` as a time zone name. Offsets (`+01:00`) and anything
 * not shaped like a zone name are refused before ICU sees them.
 */
export function isTimeZone(zone: string): boolean {
  if (zone.length > 64 || !/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(zone)) return false;
  try {
    formatter(zone);
    return true;
  } catch {
    return false;
  }
}

/**
 * The spelling of `zone` to store: the entry of the runtime's zone list it matches regardless of
 * case, else the name as given (links such as `Asia/Kolkata` are valid, whatever ICU calls them).
 */
export function zoneSpelling(zone: string): string {
  const lower = zone.toLowerCase();
  return Intl.supportedValuesOf('timeZone').find((z) => z.toLowerCase() === lower) ?? zone;
}

/**
 * The zone's wall clock at instant `ms`, as the epoch milliseconds of that reading taken as UTC
 * (seconds precision: ICU names whole seconds).
 */
export function wallClock(zone: string, ms: number): number {
  const parts = formatter(zone).formatToParts(new Date(ms));
  const n = (type: Intl.DateTimeFormatPartTypes) => Number(parts.find((p) => p.type === type)?.value);
  const d = new Date(0);
  d.setUTCFullYear(n('year'), n('month') - 1, n('day'));
  d.setUTCHours(n('hour'), n('minute'), n('second'), 0);
  return d.getTime();
}

/** The zone's offset from UTC at instant `ms`, in milliseconds. */
export function offsetAt(zone: string, ms: number): number {
  const whole = Math.floor(ms / 1000) * 1000;
  return wallClock(zone, whole) - whole;
}

/** The offsets in effect the day before and two days after a local day, per zone (a small cache). */
const dayOffsets = new Map<string, Map<number, [number, number]>>();

function offsetsAround(zone: string, day: number): [number, number] {
  let byDay = dayOffsets.get(zone);
  if (!byDay) dayOffsets.set(zone, (byDay = new Map<number, [number, number]>()));
  let found = byDay.get(day);
  if (!found) {
    if (byDay.size > 4096) byDay.clear();
    found = [offsetAt(zone, day - DAY), offsetAt(zone, day + 2 * DAY)];
    byDay.set(day, found);
  }
  return found;
}

/** The first whole second in (lo, hi] at which the wall clock reads `wall` or later; wall(lo) < wall <= wall(hi). */
function firstSecondReaching(zone: string, wall: number, lo: number, hi: number): number {
  let a = Math.floor(lo / 1000);
  let b = Math.ceil(hi / 1000);
  while (b - a > 1) {
    const mid = Math.floor((a + b) / 2);
    if (wallClock(zone, mid * 1000) >= wall) b = mid;
    else a = mid;
  }
  return b * 1000;
}

/**
 * Any zone, any history: walks from the earliest possible instant in steps shorter than any two
 * transitions are apart, then narrows to the second. Used when the day's offsets do not explain `wall`
 * (two transitions within three days, which no zone has had in decades).
 */
function scanForWall(zone: string, wall: number): number {
  let prev = wall - MAX_OFFSET;
  for (let t = prev; t <= wall + MAX_OFFSET; t += SCAN_STEP) {
    if (wallClock(zone, t) >= wall) return t === prev ? t : firstSecondReaching(zone, wall, prev, t);
    prev = t;
  }
  throw new Error(`No instant reads ${new Date(wall).toISOString()} on the wall clock of ${zone}`);
}

/**
 * The instant (epoch ms) of local wall-clock time `wall` (epoch ms of the reading taken as UTC) in
 * `zone`: the first instant at which the wall clock reads `wall` or later (see the file's comment).
 */
export function instantOf(zone: string, wall: number): number {
  const day = Math.floor(wall / DAY) * DAY;
  const [before, after] = offsetsAround(zone, day);
  const candidates = before === after ? [before] : [before, after];
  const valid = candidates.map((o) => wall - o).filter((t) => wallClock(zone, t) === wall);
  if (valid.length) return Math.min(...valid);
  if (before !== after) {
    // A gap: the wall clock jumps over `wall` between these two instants.
    const lo = wall - Math.max(before, after);
    const hi = wall - Math.min(before, after);
    if (wallClock(zone, lo) < wall && wallClock(zone, hi) >= wall) return firstSecondReaching(zone, wall, lo, hi);
  }
  return scanForWall(zone, wall);
}

/** Slots sorted by day then time, each once. */
export function normalizeSlots(slots: WeeklySlot[]): WeeklySlot[] {
  const key = (s: WeeklySlot) => `${WEEKDAYS.indexOf(s.day)}${s.time}`;
  const unique = new Map(slots.map((s) => [key(s), { day: s.day, time: s.time }]));
  return [...unique.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, s]) => s);
}

/** Minutes after midnight of each slot, per weekday (0 = Monday), ascending. */
function minutesByWeekday(slots: WeeklySlot[]): number[][] {
  const days: number[][] = WEEKDAYS.map(() => []);
  for (const s of slots) {
    const [h, m] = s.time.split(':').map(Number);
    days[WEEKDAYS.indexOf(s.day)].push(h * 60 + m);
  }
  return days.map((d) => [...new Set(d)].sort((a, b) => a - b));
}

/**
 * The schedule's instants (epoch ms) at or after `from`, in strictly increasing order, each once,
 * up to and excluding `until`. An empty schedule yields nothing.
 */
export function* slotInstants(zone: string, slots: WeeklySlot[], from: number, until: number): Generator<number> {
  const byDay = minutesByWeekday(slots);
  if (byDay.every((d) => d.length === 0)) return;
  // Start a day early: a slot of the day before can land at `from` (a gap across midnight).
  let day = Math.floor(wallClock(zone, from) / DAY) * DAY - DAY;
  let last = -Infinity;
  for (;;) {
    const weekday = (new Date(day).getUTCDay() + 6) % 7; // the calendar's weekday of that local date
    for (const minutes of byDay[weekday]) {
      const t = instantOf(zone, day + minutes * MINUTE);
      if (t >= until) return;
      if (t >= from && t > last) {
        last = t;
        yield t;
      }
    }
    day += DAY;
    // A day's earliest instant is after its local midnight minus the largest offset.
    if (day - MAX_OFFSET >= until) return;
  }
}

/** A channel's schedule, for the intersection of several. */
export interface ChannelSlots {
  channelId: string;
  timezone: string;
  slots: WeeklySlot[];
}

/**
 * The instants in [from, until) that are slots of every schedule and not in any of the channels'
 * `occupied` instants (epoch ms), ascending.
 */
export function* commonFreeInstants(
  schedules: ChannelSlots[],
  occupied: Map<string, Set<number>>,
  from: number,
  until: number,
): Generator<number> {
  if (schedules.length === 0) return;
  const streams = schedules.map((s) => slotInstants(s.timezone, s.slots, from, until));
  const heads = streams.map((g) => g.next());
  for (;;) {
    if (heads.some((h) => h.done)) return;
    const max = Math.max(...heads.map((h) => h.value as number));
    let aligned = true;
    for (let i = 0; i < streams.length; i++) {
      while (!heads[i].done && (heads[i].value as number) < max) heads[i] = streams[i].next();
      if (heads[i].done) return;
      if (heads[i].value !== max) aligned = false;
    }
    if (!aligned) continue;
    if (schedules.every((s) => !occupied.get(s.channelId)?.has(max))) yield max;
    for (let i = 0; i < streams.length; i++) heads[i] = streams[i].next();
  }
}
