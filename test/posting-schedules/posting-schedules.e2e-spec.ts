import { TestApp } from '../support/test-app';

const DAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
const HALF_HOURS = Array.from(
  { length: 48 },
  (_, i) => `${String(Math.floor(i / 2)).padStart(2, '0')}:${i % 2 ? '30' : '00'}`,
);

/**
 * Every half hour of the week in UTC, except the slots of the next two hours: the earliest slot is
 * far enough ahead that "the next free slots" read before a burst of requests are still the next ones
 * when the requests run.
 */
function halfHoursFromTwoHoursOn(): Array<{ day: string; time: string }> {
  const soon = new Set<string>();
  for (let t = Date.now(); t < Date.now() + 2 * 3_600_000; t += 60_000) {
    const d = new Date(t);
    soon.add(`${DAYS[(d.getUTCDay() + 6) % 7]} ${d.toISOString().slice(11, 16)}`);
  }
  return DAYS.flatMap((day) => HALF_HOURS.map((time) => ({ day, time }))).filter(
    (s) => !soon.has(`${s.day} ${s.time}`),
  );
}

describe('posting schedules and queued posts', () => {
  let t: TestApp;
  let a: { key: string; workspaceId: string };
  let b: { key: string; workspaceId: string };

  beforeAll(async () => {
    t = await TestApp.start();
    a = await t.createWorkspace('schedules-a');
    b = await t.createWorkspace('schedules-b');
  });
  afterAll(async () => {
    await t?.close();
  });

  const sandbox = (key: string, name: string) => t.connectChannel(key, 'sandbox', { name });
  const putSchedule = (channelId: string, body: unknown, key = a.key) =>
    t.request('PUT', `/api/channels/${channelId}/schedule`, { key, body });
  const freeSlots = async (channelId: string, query = 'limit=100', key = a.key): Promise<string[]> => {
    const res = await t.request('GET', `/api/channels/${channelId}/slots?${query}`, { key });
    expect(res.status).toBe(200);
    return (res.body.data as Array<{ at: string }>).map((s) => s.at);
  };
  const queue = (channelIds: string[], content = 'Queued') =>
    t.request('POST', '/api/posts', { key: a.key, body: { content, channelIds, queue: true } });

  describe('PUT and GET /channels/{id}/schedule', () => {
    it('stores the zone and the slots sorted by day and time, each once', async () => {
      const ch = await sandbox(a.key, 'Schedule round trip');
      const empty = await t.request('GET', `/api/channels/${ch}/schedule`, { key: a.key });
      expect(empty.status).toBe(200);
      expect(empty.body).toEqual({ channelId: ch, timezone: null, slots: [], updatedAt: null });

      const put = await putSchedule(ch, {
        timezone: 'europe/berlin',
        slots: [
          { day: 'fri', time: '17:00' },
          { day: 'mon', time: '09:00' },
          { day: 'fri', time: '17:00' },
          { day: 'mon', time: '08:30' },
        ],
      });
      expect(put.status).toBe(200);
      const expected = {
        channelId: ch,
        timezone: 'Europe/Berlin',
        slots: [
          { day: 'mon', time: '08:30' },
          { day: 'mon', time: '09:00' },
          { day: 'fri', time: '17:00' },
        ],
        updatedAt: expect.any(String),
      };
      expect(put.body).toEqual(expected);
      expect((await t.request('GET', `/api/channels/${ch}/schedule`, { key: a.key })).body).toEqual(expected);
    });

    it('refuses zones ICU does not know, offsets, bad days and times, and more than 336 slots', async () => {
      const ch = await sandbox(a.key, 'Schedule validation');
      const cases: Array<[unknown, string]> = [
        [{ timezone: 'Mars/Olympus_Mons', slots: [] }, 'timezone'],
        [{ timezone: '+01:00', slots: [] }, 'timezone'],
        [{ timezone: 'Europe/Berlin', slots: [{ day: 'monday', time: '09:00' }] }, 'slots[0].day'],
        [{ timezone: 'Europe/Berlin', slots: [{ day: 'mon', time: '24:00' }] }, 'slots[0].time'],
        [{ timezone: 'Europe/Berlin', slots: [{ day: 'mon', time: '9:00' }] }, 'slots[0].time'],
        [{ timezone: 'Europe/Berlin', slots: ['mon 09:00'] }, 'slots'],
        [{ timezone: 'Europe/Berlin' }, 'slots'],
        [
          {
            timezone: 'UTC',
            slots: [...DAYS.flatMap((day) => HALF_HOURS.map((time) => ({ day, time }))), { day: 'mon', time: '00:15' }],
          },
          'slots',
        ],
      ];
      for (const [body, field] of cases) {
        const res = await putSchedule(ch, body);
        expect({ body, status: res.status, error: res.body.error }).toEqual({
          body,
          status: 400,
          error: 'VALIDATION_ERROR',
        });
        expect({ body, fields: res.body.details.map((d: { field: string }) => d.field) }).toEqual({
          body,
          fields: expect.arrayContaining([field]),
        });
      }
      // 336 slots (every half hour of the week) is the most, and fine.
      const full = await putSchedule(ch, {
        timezone: 'UTC',
        slots: DAYS.flatMap((day) => HALF_HOURS.map((time) => ({ day, time }))),
      });
      expect(full.status).toBe(200);
      expect(full.body.slots).toHaveLength(336);
    });

    it('answers 404 for a channel of another workspace, and changes nothing there', async () => {
      const mine = await sandbox(a.key, 'Not yours');
      await putSchedule(mine, { timezone: 'UTC', slots: [{ day: 'mon', time: '09:00' }] });
      const other = { timezone: 'UTC', slots: [{ day: 'tue', time: '10:00' }] };
      for (const res of [
        await t.request('GET', `/api/channels/${mine}/schedule`, { key: b.key }),
        await putSchedule(mine, other, b.key),
        await t.request('GET', `/api/channels/${mine}/slots`, { key: b.key }),
      ]) {
        expect(res.status).toBe(404);
        expect(res.body).toEqual({ error: 'NOT_FOUND', message: 'Channel not found' });
      }
      expect((await t.request('GET', `/api/channels/${mine}/schedule`, { key: a.key })).body.slots).toEqual([
        { day: 'mon', time: '09:00' },
      ]);
      // Nor can another workspace queue a post on it.
      const res = await t.request('POST', '/api/posts', {
        key: b.key,
        body: { content: 'x', channelIds: [mine], queue: true },
      });
      expect(res.status).toBe(400);
      expect(res.body.details[0]).toEqual({ field: 'channelIds', message: expect.stringContaining('not found') });
    });
  });

  describe('GET /channels/{id}/slots', () => {
    it('lists the next slot instants in UTC across daylight-saving changes', async () => {
      const ch = await sandbox(a.key, 'Berlin nights');
      await putSchedule(ch, { timezone: 'Europe/Berlin', slots: [{ day: 'sun', time: '02:30' }] });
      // Spring forward (2030-03-31): 02:30 does not exist, the slot is the jump to 03:00 CEST (01:00Z).
      expect(await freeSlots(ch, 'from=2030-03-30T00:00:00Z&limit=2')).toEqual([
        '2030-03-31T01:00:00.000Z',
        '2030-04-07T00:30:00.000Z',
      ]);
      // Autumn (2030-10-27): 02:30 occurs twice; the slot is its first occurrence (02:30 CEST, 00:30Z), once.
      expect(await freeSlots(ch, 'from=2030-10-21T00:00:00%2B02:00&limit=3')).toEqual([
        '2030-10-27T00:30:00.000Z',
        '2030-11-03T01:30:00.000Z',
        '2030-11-10T01:30:00.000Z',
      ]);
    });

    it('starts at now at the earliest, and is empty without a schedule', async () => {
      const ch = await sandbox(a.key, 'Hourly');
      expect(await freeSlots(ch)).toEqual([]);
      await putSchedule(ch, {
        timezone: 'UTC',
        slots: DAYS.flatMap((day) => HALF_HOURS.map((time) => ({ day, time }))),
      });
      const slots = await freeSlots(ch, 'from=2001-01-01T00:00:00Z&limit=5');
      expect(slots).toHaveLength(5);
      expect(Date.parse(slots[0])).toBeGreaterThanOrEqual(Date.now() - 5_000);
      expect(Date.parse(slots[0])).toBeLessThanOrEqual(Date.now() + 30 * 60_000);
      for (let i = 1; i < 5; i++) expect(Date.parse(slots[i]) - Date.parse(slots[i - 1])).toBe(30 * 60_000);
      // The last days the API can name: the slots up to the end of the year 9999.
      const last = await freeSlots(ch, 'from=9999-12-31T22:00:00Z&limit=10');
      expect(last).toEqual([
        '9999-12-31T22:00:00.000Z',
        '9999-12-31T22:30:00.000Z',
        '9999-12-31T23:00:00.000Z',
        '9999-12-31T23:30:00.000Z',
      ]);
      for (const bad of ['limit=0', 'limit=101', 'from=2030-01-01T00:00:00', 'from=yesterday']) {
        const res = await t.request('GET', `/api/channels/${ch}/slots?${bad}`, { key: a.key });
        expect({ bad, status: res.status }).toEqual({ bad, status: 400 });
      }
    });
  });

  describe('POST /posts {queue: true}', () => {
    it('schedules the post in the first free slot, skipping slots a scheduled post takes', async () => {
      const ch = await sandbox(a.key, 'Queue one');
      await putSchedule(ch, { timezone: 'UTC', slots: halfHoursFromTwoHoursOn() });
      const [first, second, third] = await freeSlots(ch, 'limit=3');
      // A post scheduled at the first slot's instant takes it.
      const manual = await t.request('POST', '/api/posts', {
        key: a.key,
        body: { content: 'By hand', channelIds: [ch], scheduledAt: first },
      });
      expect(manual.status).toBe(201);
      expect(manual.body.queued).toBe(false);
      const res = await queue([ch]);
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ status: 'scheduled', scheduledAt: second, queued: true });
      expect((await t.request('GET', `/api/posts/${res.body.id}`, { key: a.key })).body.queued).toBe(true);
      expect((await freeSlots(ch, 'limit=1'))[0]).toBe(third);
    });

    it('takes an instant that is a slot of every channel and free on all of them', async () => {
      const berlin = await sandbox(a.key, 'Berlin');
      const newYork = await sandbox(a.key, 'New York');
      // 15:00 in Berlin is 09:00 in New York on most days of the year (not in the weeks their changes differ).
      await putSchedule(berlin, { timezone: 'Europe/Berlin', slots: DAYS.map((day) => ({ day, time: '15:00' })) });
      await putSchedule(newYork, { timezone: 'America/New_York', slots: DAYS.map((day) => ({ day, time: '09:00' })) });
      const berlinSlots = await freeSlots(berlin);
      const newYorkSlots = new Set(await freeSlots(newYork));
      const common = berlinSlots.filter((at) => newYorkSlots.has(at));
      expect(common.length).toBeGreaterThan(2);
      const first = await queue([berlin, newYork]);
      expect(first.status).toBe(201);
      expect(first.body.scheduledAt).toBe(common[0]);
      expect(await freeSlots(berlin, 'limit=1')).toEqual([berlinSlots[1]]);
      expect((await queue([newYork, berlin])).body.scheduledAt).toBe(common[1]);
      // Berlin alone takes its own next free slot, which may come before the next common one.
      const own = (await freeSlots(berlin, 'limit=1'))[0];
      expect((await queue([berlin])).body.scheduledAt).toBe(own);
    });

    it('names `queue` when a channel has no schedule, when the channels share no slot, and with scheduledAt or publishNow', async () => {
      const none = await sandbox(a.key, 'No schedule');
      const mornings = await sandbox(a.key, 'Mornings');
      const evenings = await sandbox(a.key, 'Evenings');
      await putSchedule(mornings, { timezone: 'UTC', slots: [{ day: 'mon', time: '09:00' }] });
      await putSchedule(evenings, { timezone: 'UTC', slots: [{ day: 'mon', time: '18:00' }] });
      const cases: Array<[Record<string, unknown>, RegExp]> = [
        [{ channelIds: [none], queue: true }, /no posting schedule/],
        [{ channelIds: [mornings, evenings], queue: true }, /share no free slot within 60 days/],
        [{ channelIds: [mornings], queue: true, scheduledAt: '2099-01-01T00:00:00Z' }, /scheduledAt/],
        [{ channelIds: [mornings], queue: true, publishNow: true }, /publishNow/],
      ];
      for (const [body, message] of cases) {
        const res = await t.request('POST', '/api/posts', { key: a.key, body: { content: 'x', ...body } });
        expect({ body, status: res.status, error: res.body.error }).toEqual({
          body,
          status: 400,
          error: 'VALIDATION_ERROR',
        });
        expect(res.body.details).toEqual([{ field: 'queue', message: expect.stringMatching(message) }]);
        const validated = await t.request('POST', '/api/posts/validate', {
          key: a.key,
          body: { content: 'x', ...body },
        });
        if (validated.status === 200) {
          expect(validated.body.valid).toBe(false);
          expect(validated.body.problems).toEqual([
            expect.objectContaining({ field: 'queue', message: expect.stringMatching(message) }),
          ]);
        } else {
          expect(validated.status).toBe(400);
        }
      }
      const ok = await t.request('POST', '/api/posts/validate', {
        key: a.key,
        body: { content: 'x', channelIds: [mornings], queue: true },
      });
      expect(ok.body).toEqual({ valid: true, problems: [], warnings: [] });
      // Nothing was saved by the refused requests.
      const list = await t.request('GET', `/api/posts?channelId=${mornings}`, { key: a.key });
      expect(list.body.data).toEqual([]);
    });

    it('gives 50 posts queued at once 50 distinct slots: the first 50 free ones', async () => {
      const ch = await sandbox(a.key, 'Burst');
      await putSchedule(ch, { timezone: 'UTC', slots: halfHoursFromTwoHoursOn() });
      const expected = await freeSlots(ch, 'limit=50');
      const results = await Promise.all(Array.from({ length: 50 }, (_, i) => queue([ch], `Burst ${i}`)));
      expect(results.map((r) => r.status)).toEqual(Array(50).fill(201));
      const taken = results.map((r) => r.body.scheduledAt as string);
      expect(new Set(taken).size).toBe(50);
      expect([...taken].sort()).toEqual(expected);
      expect(results.every((r) => r.body.queued === true && r.body.status === 'scheduled')).toBe(true);
      expect((await freeSlots(ch, 'limit=1'))[0] > expected[49]).toBe(true);
    });

    it('queues once under an Idempotency-Key: the retry replays the answer and takes no second slot', async () => {
      const ch = await sandbox(a.key, 'Idempotent queue');
      await putSchedule(ch, { timezone: 'UTC', slots: halfHoursFromTwoHoursOn() });
      const [s1, s2] = await freeSlots(ch, 'limit=2');
      const send = () =>
        t.request('POST', '/api/posts', {
          key: a.key,
          headers: { 'idempotency-key': `queue-${ch}` },
          body: { content: 'Once', channelIds: [ch], queue: true },
        });
      const first = await send();
      const again = await send();
      expect(first.status).toBe(201);
      expect(again.status).toBe(201);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.body).toEqual(first.body);
      expect(first.body).toMatchObject({ scheduledAt: s1, queued: true });
      expect((await freeSlots(ch, 'limit=1'))[0]).toBe(s2);
    });

    it('frees the slot when the post is deleted or rescheduled, and PUT with queue queues it again', async () => {
      const ch = await sandbox(a.key, 'Free again');
      await putSchedule(ch, { timezone: 'UTC', slots: halfHoursFromTwoHoursOn() });
      const [s1, s2, s3] = await freeSlots(ch, 'limit=3');
      const p1 = (await queue([ch], 'One')).body;
      const p2 = (await queue([ch], 'Two')).body;
      expect([p1.scheduledAt, p2.scheduledAt]).toEqual([s1, s2]);

      // Deleting p1 frees s1.
      expect((await t.request('DELETE', `/api/posts/${p1.id}`, { key: a.key })).status).toBe(204);
      expect(await freeSlots(ch, 'limit=2')).toEqual([s1, s3]);

      // Rescheduling p2 by hand (a time that is no slot) frees s2; it is no longer queued.
      const byHand = new Date(Date.parse(s3) + 7 * 60_000).toISOString();
      const moved = await t.request('PUT', `/api/posts/${p2.id}`, {
        key: a.key,
        body: { content: 'Two', channelIds: [ch], scheduledAt: byHand },
      });
      expect(moved.status).toBe(200);
      expect(moved.body).toMatchObject({ scheduledAt: byHand, queued: false, status: 'scheduled' });
      expect(await freeSlots(ch, 'limit=3')).toEqual([s1, s2, s3]);

      // PUT with queue: true queues it again, in the earliest free slot.
      const requeued = await t.request('PUT', `/api/posts/${p2.id}`, {
        key: a.key,
        body: { content: 'Two again', channelIds: [ch], queue: true },
      });
      expect(requeued.status).toBe(200);
      expect(requeued.body).toMatchObject({ scheduledAt: s1, queued: true, status: 'scheduled', content: 'Two again' });
      // Queued again, a queued post may keep its own slot (it is the earliest free one for it).
      const again = await t.request('PUT', `/api/posts/${p2.id}`, {
        key: a.key,
        body: { content: 'Two', channelIds: [ch], queue: true },
      });
      expect(again.body.scheduledAt).toBe(s1);
      // A draft (no timing) holds no slot.
      const draft = await t.request('PUT', `/api/posts/${p2.id}`, {
        key: a.key,
        body: { content: 'Two', channelIds: [ch] },
      });
      expect(draft.body).toMatchObject({ status: 'draft', scheduledAt: null, queued: false });
      expect(await freeSlots(ch, 'limit=1')).toEqual([s1]);
      // A draft queued with PUT.
      const fromDraft = await t.request('PUT', `/api/posts/${p2.id}`, {
        key: a.key,
        body: { content: 'Two', channelIds: [ch], queue: true },
      });
      expect(fromDraft.body).toMatchObject({ status: 'scheduled', scheduledAt: s1, queued: true });
    });

    it('leaves queued posts where they are when the schedule changes', async () => {
      const ch = await sandbox(a.key, 'Schedule changes');
      await putSchedule(ch, { timezone: 'UTC', slots: halfHoursFromTwoHoursOn() });
      const post = (await queue([ch])).body;
      expect((await putSchedule(ch, { timezone: 'Asia/Kolkata', slots: [{ day: 'mon', time: '09:00' }] })).status).toBe(
        200,
      );
      const after = (await t.request('GET', `/api/posts/${post.id}`, { key: a.key })).body;
      expect(after).toMatchObject({ scheduledAt: post.scheduledAt, queued: true, status: 'scheduled' });
      // The new schedule's slots are Mondays 09:00 in Kolkata (03:30 UTC).
      const next = await freeSlots(ch, 'limit=2');
      for (const at of next) expect(at).toMatch(/T03:30:00\.000Z$/);
      expect(new Date(next[0]).getUTCDay()).toBe(1);
    });
  });
});
