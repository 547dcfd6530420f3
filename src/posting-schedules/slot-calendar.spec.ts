import fc from 'fast-check';
import {
  MAX_SLOTS,
  WEEKDAYS,
  WeeklySlot,
  commonFreeInstants,
  instantOf,
  isTimeZone,
  normalizeSlots,
  slotInstants,
  zoneSpelling,
} from './slot-calendar';

const ZONES = ['America/New_York', 'Europe/Berlin', 'Australia/Sydney', 'Asia/Kolkata'] as const;
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const YEAR_FROM = Date.UTC(2026, 0, 1);
const YEAR_UNTIL = Date.UTC(2027, 0, 1);

/**
 * An oracle built another way than the code under test: the zone's offsets over the year as a table
 * of segments, found by reading the wall clock through `toLocaleString` every half hour and narrowing
 * each change to the second.
 */
interface Segment {
  start: number;
  end: number;
  offset: number;
}

/**
 * What `Date#toLocaleString('sv-SE', { timeZone, hour12: false })` prints, from one formatter per zone:
 * toLocaleString builds a new ICU formatter on every call (about a millisecond each), and the oracle
 * reads the clock hundreds of thousands of times.
 */
const localeFormatters = new Map<string, Intl.DateTimeFormat>();

function localeString(zone: string, ms: number): string {
  let f = localeFormatters.get(zone);
  if (!f) {
    // The components toLocaleString asks for when given none: the full date and time.
    f = new Intl.DateTimeFormat('sv-SE', {
      timeZone: zone,
      hour12: false,
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    localeFormatters.set(zone, f);
  }
  return f.format(new Date(ms));
}

function wallByLocaleString(zone: string, ms: number): number {
  // sv-SE prints 2026-03-08 03:00:00.
  const text = localeString(zone, ms);
  const m = /^(\d{4})-(\d{2})-(\d{2}) (\d{1,2}):(\d{2}):(\d{2})$/.exec(text);
  if (!m) throw new Error(`unexpected ${text}`);
  return Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6]);
}

const offsetByLocaleString = (zone: string, ms: number) => {
  const whole = Math.floor(ms / 1000) * 1000;
  return wallByLocaleString(zone, whole) - whole;
};

const segmentCache = new Map<string, Segment[]>();

function segments(zone: string): Segment[] {
  const cached = segmentCache.get(zone);
  if (cached) return cached;
  const from = YEAR_FROM - 3 * DAY;
  const until = YEAR_UNTIL + 3 * DAY;
  const found: Segment[] = [];
  let start = from;
  let offset = offsetByLocaleString(zone, from);
  for (let t = from + 30 * MINUTE; t <= until; t += 30 * MINUTE) {
    const o = offsetByLocaleString(zone, t);
    if (o === offset) continue;
    let lo = (t - 30 * MINUTE) / 1000;
    let hi = t / 1000;
    while (hi - lo > 1) {
      const mid = Math.floor((lo + hi) / 2);
      if (offsetByLocaleString(zone, mid * 1000) === offset) lo = mid;
      else hi = mid;
    }
    found.push({ start, end: hi * 1000, offset });
    start = hi * 1000;
    offset = o;
  }
  found.push({ start, end: until, offset });
  segmentCache.set(zone, found);
  return found;
}

/** The first instant whose wall clock reads `wall` or later, from the table. */
function oracleInstant(zone: string, wall: number): number {
  for (const s of segments(zone)) {
    const t = Math.max(s.start, wall - s.offset);
    if (t < s.end) return t;
  }
  throw new Error('outside the table');
}

/** Every local date around the year, every slot of its weekday, mapped, kept in [from, until), sorted, once. */
function oracleInstants(zone: string, slots: WeeklySlot[], from: number, until: number): number[] {
  const out = new Set<number>();
  for (let day = YEAR_FROM - 2 * DAY; day < YEAR_UNTIL + 2 * DAY; day += DAY) {
    const weekday = WEEKDAYS[(new Date(day).getUTCDay() + 6) % 7];
    for (const s of slots.filter((x) => x.day === weekday)) {
      const [h, m] = s.time.split(':').map(Number);
      const t = oracleInstant(zone, day + h * HOUR + m * MINUTE);
      if (t >= from && t < until) out.add(t);
    }
  }
  return [...out].sort((a, b) => a - b);
}

/** `HH:MM` with every minute possible, weighted towards the hours clocks change at (00:00-03:59). */
const time = fc
  .oneof(
    { arbitrary: fc.integer({ min: 0, max: 23 }), weight: 1 },
    { arbitrary: fc.integer({ min: 0, max: 3 }), weight: 2 },
  )
  .chain((h) =>
    fc
      .oneof(fc.integer({ min: 0, max: 59 }), fc.constantFrom(0, 30))
      .map((m) => `${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}`),
  );
const slot = fc.record({ day: fc.constantFrom(...WEEKDAYS), time });
const schedule = fc.array(slot, { minLength: 1, maxLength: 14 });
const zone = fc.constantFrom(...ZONES);
const list = (g: Iterable<number>) => [...g];

describe('slot calendar: weekly slots as instants across daylight-saving changes', () => {
  it.each(ZONES)('%s: a whole year of random schedules gives exactly the instants of the offset table', (z) => {
    fc.assert(
      fc.property(schedule, (slots) => {
        const produced = list(slotInstants(z, slots, YEAR_FROM, YEAR_UNTIL));
        // None missing, none extra (same set as the oracle), strictly increasing, so no duplicates.
        expect(produced).toEqual(oracleInstants(z, slots, YEAR_FROM, YEAR_UNTIL));
        for (let i = 1; i < produced.length; i++) expect(produced[i]).toBeGreaterThan(produced[i - 1]);
      }),
      { numRuns: 60 },
    );
  });

  it.each(ZONES)(
    '%s: every instant reads as one of the slots, or is the jump of a spring-forward gap holding one',
    (z) => {
      const table = segments(z);
      fc.assert(
        fc.property(schedule, (slots) => {
          const wanted = new Set(normalizeSlots(slots).map((s) => `${s.day} ${s.time}`));
          for (const t of slotInstants(z, slots, YEAR_FROM, YEAR_UNTIL)) {
            const wall = wallByLocaleString(z, t);
            const label = (w: number) =>
              `${WEEKDAYS[(new Date(w).getUTCDay() + 6) % 7]} ${new Date(w).toISOString().slice(11, 16)}`;
            if (wanted.has(label(wall))) continue;
            // Otherwise: t is the moment the clocks jumped forward, over a slot of that day.
            const i = table.findIndex((s) => s.start === t);
            expect(i).toBeGreaterThan(0);
            const jumpedFrom = t + table[i - 1].offset;
            expect(table[i].offset).toBeGreaterThan(table[i - 1].offset);
            const skipped = [...wanted].some((w) => {
              for (let m = jumpedFrom; m < wall; m += MINUTE) if (label(m) === w) return true;
              return false;
            });
            expect({ instant: new Date(t).toISOString(), skipped }).toEqual({
              instant: new Date(t).toISOString(),
              skipped: true,
            });
          }
        }),
        { numRuns: 40 },
      );
    },
  );

  it('starts anywhere: the instants from any moment are the year’s instants from that moment', () => {
    fc.assert(
      fc.property(zone, schedule, fc.integer({ min: YEAR_FROM, max: YEAR_UNTIL - 1 }), (z, slots, from) => {
        expect(list(slotInstants(z, slots, from, YEAR_UNTIL))).toEqual(
          oracleInstants(z, slots, YEAR_FROM, YEAR_UNTIL).filter((t) => t >= from),
        );
      }),
      { numRuns: 100 },
    );
  });

  it('several channels share the instants that are slots of each and free on all', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ zone, slots: schedule }), { minLength: 1, maxLength: 3 }),
        fc.array(fc.integer({ min: 0, max: 400 }), { maxLength: 20 }),
        (channels, taken) => {
          const schedules = channels.map((c, i) => ({ channelId: `c${i}`, timezone: c.zone, slots: c.slots }));
          const each = schedules.map((s) => oracleInstants(s.timezone, s.slots, YEAR_FROM, YEAR_UNTIL));
          // Occupy some instants of the first channel's slots, on one channel or another.
          const occupied = new Map<string, Set<number>>();
          taken.forEach((n, i) => {
            const at = each[0][n % Math.max(1, each[0].length)];
            if (at === undefined) return;
            const channel = `c${i % schedules.length}`;
            occupied.set(channel, (occupied.get(channel) ?? new Set()).add(at));
          });
          const expected = each[0].filter(
            (t) => each.every((e) => e.includes(t)) && schedules.every((s) => !occupied.get(s.channelId)?.has(t)),
          );
          expect(list(commonFreeInstants(schedules, occupied, YEAR_FROM, YEAR_UNTIL))).toEqual(expected);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('moves a time that does not exist (spring forward) to the moment the clocks jump', () => {
    const at = (z: string, local: string) => new Date(instantOf(z, Date.parse(`${local}Z`))).toISOString();
    expect(at('America/New_York', '2026-03-08T02:30:00')).toBe('2026-03-08T07:00:00.000Z'); // 03:00 EDT
    expect(at('Europe/Berlin', '2026-03-29T02:30:00')).toBe('2026-03-29T01:00:00.000Z'); // 03:00 CEST
    expect(at('Australia/Sydney', '2026-10-04T02:30:00')).toBe('2026-10-03T16:00:00.000Z'); // 03:00 AEDT
    // Two slots in the gap and the time the clocks jump to are one instant.
    expect(
      list(
        slotInstants(
          'America/New_York',
          [
            { day: 'sun', time: '02:00' },
            { day: 'sun', time: '02:45' },
            { day: 'sun', time: '03:00' },
          ],
          Date.parse('2026-03-08T00:00:00Z'),
          Date.parse('2026-03-09T00:00:00Z'),
        ),
      ).map((t) => new Date(t).toISOString()),
    ).toEqual(['2026-03-08T07:00:00.000Z']);
  });

  it('uses the first occurrence of a time that occurs twice (autumn), once', () => {
    const at = (z: string, local: string) => new Date(instantOf(z, Date.parse(`${local}Z`))).toISOString();
    expect(at('America/New_York', '2026-11-01T01:30:00')).toBe('2026-11-01T05:30:00.000Z'); // 01:30 EDT
    expect(at('Europe/Berlin', '2026-10-25T02:30:00')).toBe('2026-10-25T00:30:00.000Z'); // 02:30 CEST
    expect(at('Australia/Sydney', '2026-04-05T02:30:00')).toBe('2026-04-04T15:30:00.000Z'); // 02:30 AEDT
    expect(
      list(
        slotInstants(
          'Europe/Berlin',
          [{ day: 'sun', time: '02:30' }],
          Date.parse('2026-10-24T00:00:00Z'),
          Date.parse('2026-10-26T00:00:00Z'),
        ),
      ),
    ).toEqual([Date.parse('2026-10-25T00:30:00Z')]);
  });

  it('takes a zone without daylight saving and with a half-hour offset as it is', () => {
    expect(
      list(
        slotInstants(
          'Asia/Kolkata',
          [{ day: 'mon', time: '09:00' }],
          Date.parse('2026-01-01T00:00:00Z'),
          Date.parse('2026-01-15T00:00:00Z'),
        ),
      ).map((t) => new Date(t).toISOString()),
    ).toEqual(['2026-01-05T03:30:00.000Z', '2026-01-12T03:30:00.000Z']);
  });

  it('does not depend on the process time zone (TZ)', () => {
    const slots: WeeklySlot[] = [
      { day: 'sun', time: '02:30' },
      { day: 'wed', time: '23:45' },
    ];
    const before = list(slotInstants('Europe/Berlin', slots, YEAR_FROM, YEAR_UNTIL));
    const saved = process.env.TZ;
    try {
      for (const tz of ['Pacific/Kiritimati', 'America/Los_Angeles', 'UTC']) {
        process.env.TZ = tz;
        expect(list(slotInstants('Europe/Berlin', slots, YEAR_FROM, YEAR_UNTIL))).toEqual(before);
      }
    } finally {
      if (saved === undefined) delete process.env.TZ;
      else process.env.TZ = saved;
    }
  });

  it('yields nothing for an empty schedule, and stops at `until`', () => {
    expect(list(slotInstants('UTC', [], YEAR_FROM, YEAR_UNTIL))).toEqual([]);
    const week = list(slotInstants('UTC', [{ day: 'mon', time: '00:00' }], YEAR_FROM, YEAR_FROM + 7 * DAY));
    expect(week.map((t) => new Date(t).toISOString())).toEqual(['2026-01-05T00:00:00.000Z']);
  });

  it('sorts slots by day and time and keeps each once', () => {
    expect(
      normalizeSlots([
        { day: 'sun', time: '08:00' },
        { day: 'mon', time: '17:00' },
        { day: 'mon', time: '09:00' },
        { day: 'mon', time: '17:00' },
      ]),
    ).toEqual([
      { day: 'mon', time: '09:00' },
      { day: 'mon', time: '17:00' },
      { day: 'sun', time: '08:00' },
    ]);
    expect(MAX_SLOTS).toBe(336);
  });

  it('knows zone names from ICU, refuses offsets and unknown names, keeps links as given', () => {
    for (const z of [...ZONES, 'UTC', 'US/Eastern', 'Asia/Calcutta', 'America/Argentina/Buenos_Aires', 'Etc/GMT+5'])
      expect({ z, ok: isTimeZone(z) }).toEqual({ z, ok: true });
    for (const z of ['+01:00', 'Mars/Olympus', '', 'Europe/Berlin ', '../etc/passwd', 'Local', 'x'.repeat(65)])
      expect({ z, ok: isTimeZone(z) }).toEqual({ z, ok: false });
    expect(zoneSpelling('europe/berlin')).toBe('Europe/Berlin');
    expect(zoneSpelling('Asia/Kolkata')).toBe('Asia/Kolkata');
  });
});
