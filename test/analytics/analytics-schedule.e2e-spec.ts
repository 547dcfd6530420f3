import Redis from 'ioredis';
import { setTimeout as sleep } from 'node:timers/promises';
import { BlueskyFake } from '../fakes/bluesky.fake';
import { MASTODON_ROUTES, MastodonFake } from '../fakes/mastodon.fake';
import { TEST_REDIS_URL } from '../setup/test-env';
import { FAST_PUBLISHING_ENV, waitFor } from '../support/publishing-env';
import { TestApp } from '../support/test-app';

const MINUTE = 60_000;

/**
 * The scheduled collection (a run every second here): published posts are read without any refresh,
 * a snapshot and an event only when a figure changed, the cadence thins with age, transient failures
 * wait for the next run, revoked credentials disconnect the channel, renewed sessions are stored.
 */
describe('analytics collection runs', () => {
  let t: TestApp;
  let mastodon: MastodonFake;
  let bluesky: BlueskyFake;
  let a: { key: string; workspaceId: string };
  let masto: string;
  let bsky: string;

  beforeAll(async () => {
    mastodon = new MastodonFake({ tokens: ['tok-a'] });
    bluesky = new BlueskyFake({
      accounts: [
        { identifier: 'alice.test', password: 'pw', handle: 'alice.test' },
        { identifier: 'bob.test', password: 'pw', handle: 'bob.test' },
      ],
    });
    await Promise.all([mastodon.start(), bluesky.start()]);
    t = await TestApp.start({ env: { ...FAST_PUBLISHING_ENV, ANALYTICS_INTERVAL_SECONDS: '1' } });
    a = await t.createWorkspace('schedule-a');
    masto = await t.connectChannel(a.key, 'mastodon', { instanceUrl: mastodon.baseUrl, accessToken: 'tok-a' });
    bsky = await t.connectChannel(a.key, 'bluesky', {
      identifier: 'alice.test',
      appPassword: 'pw',
      serviceUrl: bluesky.baseUrl,
    });
  });
  afterAll(async () => {
    await t?.close();
    await Promise.all([mastodon.stop(), bluesky.stop()]);
  });

  async function publish(channelIds: string[]): Promise<any> {
    const created = await t.request('POST', '/api/posts', {
      key: a.key,
      body: { content: `Scheduled ${Math.random()}`, channelIds, publishNow: true },
    });
    expect(created.status).toBe(201);
    return waitFor(
      async () => (await t.request('GET', `/api/posts/${created.body.id}`, { key: a.key })).body,
      (p) => p.status === 'published',
    );
  }

  const platformId = (post: any, channelId: string): string =>
    post.targets.find((x: any) => x.channelId === channelId).platformPostId;
  const analytics = async (postId: string) =>
    (await t.request('GET', `/api/analytics/posts/${postId}`, { key: a.key })).body;
  const updatedEvents = async (postId: string) =>
    (await t.request('GET', '/api/events?type=analytics.updated&limit=100', { key: a.key })).body.data.filter(
      (e: any) => e.data.postId === postId,
    );
  const metricsRow = async (postId: string) =>
    (await t.dataSource.query('SELECT * FROM target_metrics WHERE post_id = $1', [postId]))[0];

  it('collects published posts on its own, with one event and one snapshot per change', async () => {
    const post = await publish([masto, bsky]);
    mastodon.setCounts(platformId(post, masto), { likes: 2, reposts: 1, replies: 1 });
    bluesky.setCounts(platformId(post, bsky), { likes: 3, reposts: 0, replies: 0, quotes: 1 });
    const read = await waitFor(
      () => analytics(post.id),
      (x) => x.totals.likes === 5 && x.totals.quotes === 1,
    );
    expect(read.totals).toEqual({ likes: 5, reposts: 1, replies: 1, quotes: 1, impressions: null });

    // Further runs read the post again (first day: every run) but store nothing new.
    await waitFor(
      () => analytics(post.id),
      (x) => Date.parse(x.collectedAt) > Date.parse(read.collectedAt) + 1000,
    );
    const events = await updatedEvents(post.id);
    expect(events).toHaveLength(1);
    expect(events[0].data.totals).toEqual(read.totals);
    const [{ n }] = await t.dataSource.query('SELECT count(*)::int AS n FROM analytics_snapshots WHERE post_id = $1', [
      post.id,
    ]);
    expect(n).toBe(2);
  });

  it('leaves a target due after a transient failure and reads it on a later run', async () => {
    const post = await publish([masto]);
    const status = platformId(post, masto);
    const before = mastodon.requests.filter((r) => r.route === MASTODON_ROUTES.getStatus).length;
    mastodon.failNext(3, 503, MASTODON_ROUTES.getStatus);
    mastodon.setCounts(status, { likes: 6 });
    await waitFor(
      () => analytics(post.id),
      (x) => x.totals.likes === 6,
    );
    expect(mastodon.requests.filter((r) => r.route === MASTODON_ROUTES.getStatus).length - before).toBeGreaterThan(3);
  });

  it('thins the cadence with age: hourly after a day, daily after a week, stops after 30 days', async () => {
    const cases = [
      { ageDays: 3, stepMin: 59 },
      { ageDays: 10, stepMin: 24 * 60 - 1 },
      { ageDays: 40, stepMin: null },
    ];
    for (const c of cases) {
      const post = await publish([masto]);
      await waitFor(
        () => metricsRow(post.id),
        (row) => row?.collected_at != null,
      );
      await t.dataSource.query(
        `UPDATE target_metrics SET published_at = now() - ($2 || ' days')::interval, next_collect_at = now()
          WHERE post_id = $1`,
        [post.id, String(c.ageDays)],
      );
      const startedAt = Date.now();
      // (A run that loaded the target just before the UPDATE may write one short step first.)
      const row = await waitFor(
        () => metricsRow(post.id),
        (r) =>
          r.collected_at.getTime() > startedAt &&
          (c.stepMin === null
            ? r.next_collect_at === null
            : r.next_collect_at !== null && r.next_collect_at.getTime() - r.collected_at.getTime() > 10_000),
      );
      if (c.stepMin === null) {
        expect(row.next_collect_at).toBeNull();
      } else {
        const step = row.next_collect_at.getTime() - row.collected_at.getTime();
        expect(step).toBeGreaterThan((c.stepMin - 1) * MINUTE);
        expect(step).toBeLessThanOrEqual(c.stepMin * MINUTE);
      }
    }
  });

  it('disconnects a Bluesky channel whose app password was revoked, and stops reading its posts', async () => {
    const channel = await t.connectChannel(a.key, 'bluesky', {
      identifier: 'bob.test',
      appPassword: 'pw',
      serviceUrl: bluesky.baseUrl,
    });
    const post = await publish([channel]);
    await waitFor(
      () => metricsRow(post.id),
      (row) => row?.collected_at != null,
    );
    bluesky.revokeAccount('bob.test');
    const disconnected = await waitFor(
      async () => (await t.request('GET', `/api/channels/${channel}`, { key: a.key })).body,
      (c) => c.status === 'disconnected',
    );
    expect(disconnected.status).toBe('disconnected');
    const events = (await t.request('GET', '/api/events?type=channel.disconnected&limit=100', { key: a.key })).body
      .data;
    expect(events.filter((e: any) => e.data.id === channel)).toEqual([
      expect.objectContaining({ data: expect.objectContaining({ reason: 'credentials_revoked' }) }),
    ]);
    // Its targets are no longer read (they wait, due, until the channel is connected again).
    const readAt = (await metricsRow(post.id)).collected_at.getTime();
    await sleep(2000);
    expect((await metricsRow(post.id)).collected_at.getTime()).toBe(readAt);
  });

  it('stores the session a Bluesky adapter renewed during collection', async () => {
    const post = await publish([bsky]);
    await waitFor(
      () => metricsRow(post.id),
      (row) => row?.collected_at != null,
    );
    const sealed = async () =>
      (await t.dataSource.query('SELECT credentials FROM channels WHERE id = $1', [bsky]))[0].credentials as string;
    const before = await sealed();
    bluesky.expireAccessTokens();
    bluesky.setCounts(platformId(post, bsky), { likes: 11 });
    await waitFor(
      () => analytics(post.id),
      (x) => x.totals.likes === 11,
    );
    await waitFor(sealed, (s) => s !== before);
    const refreshes = bluesky.requests.filter((r) => r.route === 'com.atproto.server.refreshSession').length;
    await sleep(1500); // later runs use the stored session: no new refresh
    expect(bluesky.requests.filter((r) => r.route === 'com.atproto.server.refreshSession').length).toBe(refreshes);
    expect((await t.request('GET', `/api/channels/${bsky}`, { key: a.key })).body.status).toBe('active');
  });

  it('keeps collecting after Redis is flushed: the schedule lives in Postgres', async () => {
    const redis = new Redis(TEST_REDIS_URL);
    try {
      const keys = await redis.keys(`${t.env.redisPrefix}:*`);
      if (keys.length) await redis.del(...keys);
    } finally {
      redis.disconnect();
    }
    const post = await publish([masto]);
    mastodon.setCounts(platformId(post, masto), { likes: 1 });
    await waitFor(
      () => analytics(post.id),
      (x) => x.totals.likes === 1,
    );
  });
});
