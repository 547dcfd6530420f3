import { setTimeout as sleep } from 'node:timers/promises';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { BlueskyFake } from '../fakes/bluesky.fake';
import { MastodonFake } from '../fakes/mastodon.fake';
import { FAST_PUBLISHING_ENV, waitFor } from '../support/publishing-env';
import { TestApp } from '../support/test-app';
import { WebhookReceiver } from '../support/webhook-receiver';

/**
 * Analytics through the real API against the provider fakes: posts are published with publishNow,
 * counts are changed in the fakes, and POST .../refresh collects them. The scheduled run is set to an
 * hour here (it runs once at start, on an empty database), so every read below comes from a refresh;
 * analytics-schedule.e2e-spec.ts covers the timer.
 */
describe('analytics', () => {
  let t: TestApp;
  let mastodon: MastodonFake;
  let bluesky: BlueskyFake;
  let receiver: WebhookReceiver;
  let a: { key: string; workspaceId: string };
  let b: { key: string; workspaceId: string };
  let masto: string;
  let bsky: string;

  beforeAll(async () => {
    mastodon = new MastodonFake({ tokens: ['tok-a', 'tok-series', 'tok-revoked', 'tok-hook'] });
    bluesky = new BlueskyFake({ accounts: [{ identifier: 'alice.test', password: 'pw', handle: 'alice.test' }] });
    receiver = new WebhookReceiver();
    await Promise.all([mastodon.start(), bluesky.start(), receiver.start()]);
    t = await TestApp.start({
      env: {
        ...FAST_PUBLISHING_ENV,
        ANALYTICS_INTERVAL_SECONDS: '3600',
        ANALYTICS_REFRESH_COOLDOWN_SECONDS: '1',
        WEBHOOK_SWEEP_INTERVAL_MS: '500',
      },
    });
    a = await t.createWorkspace('analytics-a');
    b = await t.createWorkspace('analytics-b');
    masto = await t.connectChannel(a.key, 'mastodon', { instanceUrl: mastodon.baseUrl, accessToken: 'tok-a' });
    bsky = await t.connectChannel(a.key, 'bluesky', {
      identifier: 'alice.test',
      appPassword: 'pw',
      serviceUrl: bluesky.baseUrl,
    });
  });
  afterAll(async () => {
    await t?.close();
    await Promise.all([mastodon.stop(), bluesky.stop(), receiver.stop()]);
  });

  /** Creates a post with publishNow and waits until it is published; returns it (with targets). */
  async function publish(channelIds: string[], key = a.key, content = `Hello ${Math.random()}`): Promise<any> {
    const created = await t.request('POST', '/api/posts', { key, body: { content, channelIds, publishNow: true } });
    expect(created.status).toBe(201);
    const post = await waitFor(
      async () => (await t.request('GET', `/api/posts/${created.body.id}`, { key })).body,
      (p) => p.status === 'published' || p.status === 'failed',
    );
    expect(post.status).toBe('published');
    return post;
  }

  const platformId = (post: any, channelId: string): string =>
    post.targets.find((x: any) => x.channelId === channelId).platformPostId;
  const analytics = async (postId: string, key = a.key) =>
    (await t.request('GET', `/api/analytics/posts/${postId}`, { key })).body;
  const updatedEvents = async (postId: string, key = a.key) =>
    (await t.request('GET', '/api/events?type=analytics.updated&limit=100', { key })).body.data.filter(
      (e: any) => e.data.postId === postId,
    );
  const refresh = (postId: string, key = a.key) => t.request('POST', `/api/analytics/posts/${postId}/refresh`, { key });

  /** Refreshes (waiting out the 1 s cooldown if needed) and waits until a read newer than `since` is stored. */
  async function refreshAndWait(postId: string, since: string | null, key = a.key): Promise<any> {
    let res = await refresh(postId, key);
    while (res.status === 429) {
      await sleep(Number(res.headers.get('retry-after')) * 1000);
      res = await refresh(postId, key);
    }
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ postId, status: 'queued' });
    return waitFor(
      () => analytics(postId, key),
      (x) => x.collectedAt !== null && (since === null || x.collectedAt > since),
    );
  }

  it('refresh reads the new counts from Mastodon and Bluesky and records exactly one analytics.updated', async () => {
    const post = await publish([masto, bsky]);
    const before = await analytics(post.id);
    expect(before).toEqual({
      postId: post.id,
      totals: { likes: null, reposts: null, replies: null, quotes: null, impressions: null },
      targets: [
        {
          channelId: masto,
          metrics: { likes: null, reposts: null, replies: null, quotes: null, impressions: null },
          collectedAt: null,
        },
        {
          channelId: bsky,
          metrics: { likes: null, reposts: null, replies: null, quotes: null, impressions: null },
          collectedAt: null,
        },
      ],
      collectedAt: null,
    });

    mastodon.setCounts(platformId(post, masto), { likes: 5, reposts: 2, replies: 1 });
    bluesky.setCounts(platformId(post, bsky), { likes: 7, reposts: 3, replies: 4, quotes: 2 });
    const after = await refreshAndWait(post.id, null);
    await waitFor(
      () => analytics(post.id),
      (x) => x.targets.every((target: any) => target.collectedAt !== null),
    );
    const result = await analytics(post.id);
    expect(result.targets).toEqual([
      {
        channelId: masto,
        metrics: { likes: 5, reposts: 2, replies: 1, quotes: null, impressions: null },
        collectedAt: expect.any(String),
      },
      {
        channelId: bsky,
        metrics: { likes: 7, reposts: 3, replies: 4, quotes: 2, impressions: null },
        collectedAt: expect.any(String),
      },
    ]);
    expect(result.totals).toEqual({ likes: 12, reposts: 5, replies: 5, quotes: 2, impressions: null });
    expect(result.collectedAt).toBe([result.targets[0].collectedAt, result.targets[1].collectedAt].sort()[1]);
    expect(after.postId).toBe(post.id);

    const events = await waitFor(
      () => updatedEvents(post.id),
      (e) => e.length > 0,
    );
    await sleep(300);
    expect(await updatedEvents(post.id)).toHaveLength(1);
    expect(events[0]).toEqual(
      expect.objectContaining({ type: 'analytics.updated', workspaceId: a.workspaceId, data: result }),
    );
    const snapshots = await t.dataSource.query(
      'SELECT channel_id, likes, reposts, replies, quotes, impressions, raw FROM analytics_snapshots WHERE post_id = $1',
      [post.id],
    );
    expect(snapshots).toHaveLength(2);
    expect(snapshots.find((s: any) => s.channel_id === bsky).raw).toEqual({
      likeCount: 7,
      repostCount: 3,
      replyCount: 4,
      quoteCount: 2,
    });
  });

  it('records no event and no snapshot when a refresh finds the same counts, and one more when they change', async () => {
    const post = await publish([masto]);
    const status = platformId(post, masto);
    mastodon.setCounts(status, { likes: 1 });
    const first = await refreshAndWait(post.id, null);
    await waitFor(
      () => updatedEvents(post.id),
      (e) => e.length === 1,
    );

    const second = await refreshAndWait(post.id, first.collectedAt);
    expect(second.totals.likes).toBe(1);
    await sleep(300);
    expect(await updatedEvents(post.id)).toHaveLength(1);

    mastodon.setCounts(status, { likes: 4, replies: 2 });
    const third = await refreshAndWait(post.id, second.collectedAt);
    expect(third.totals).toEqual({ likes: 4, reposts: 0, replies: 2, quotes: null, impressions: null });
    const events = await waitFor(
      () => updatedEvents(post.id),
      (e) => e.length === 2,
    );
    expect(events[0].data).toEqual(third); // newest first
    const [{ n }] = await t.dataSource.query('SELECT count(*)::int AS n FROM analytics_snapshots WHERE post_id = $1', [
      post.id,
    ]);
    expect(n).toBe(2);
  });

  it('stores no snapshot and records no event for a first read of all-zero counts', async () => {
    const post = await publish([masto]);
    const read = await refreshAndWait(post.id, null);
    expect(read.totals).toEqual({ likes: 0, reposts: 0, replies: 0, quotes: null, impressions: null });
    await sleep(300);
    expect(await updatedEvents(post.id)).toHaveLength(0);
    const [{ n }] = await t.dataSource.query('SELECT count(*)::int AS n FROM analytics_snapshots WHERE post_id = $1', [
      post.id,
    ]);
    expect(n).toBe(0);
  });

  it('rate-limits refresh per post: 429 RATE_LIMIT_EXCEEDED with Retry-After; other posts are not affected', async () => {
    const [p1, p2] = [await publish([masto]), await publish([masto])];
    await sleep(1100); // past the cooldown of any earlier refresh
    expect((await refresh(p1.id)).status).toBe(202);
    const again = await refresh(p1.id);
    expect(again.status).toBe(429);
    expect(again.body).toEqual({ error: 'RATE_LIMIT_EXCEEDED', message: expect.any(String) });
    expect(Number(again.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect((await refresh(p2.id)).status).toBe(202);
    await sleep(1100);
    expect((await refresh(p1.id)).status).toBe(202);
  });

  it('sums the channel series per publication day, with totals, and null figures where no post exposes them', async () => {
    const channel = await t.connectChannel(a.key, 'mastodon', {
      instanceUrl: mastodon.baseUrl,
      accessToken: 'tok-series',
    });
    const posts = [await publish([channel]), await publish([channel]), await publish([channel])];
    const counts = [
      { likes: 3, reposts: 1, replies: 0 },
      { likes: 4, reposts: 0, replies: 2 },
      { likes: 10, reposts: 5, replies: 1 },
    ];
    posts.forEach((p, i) => mastodon.setCounts(platformId(p, channel), counts[i]));
    for (const p of posts) await refreshAndWait(p.id, null);

    // The third post was published yesterday (as far as the series is concerned).
    const day = 86_400_000;
    const today = new Date().toISOString().slice(0, 10);
    const yesterday = new Date(Date.now() - day).toISOString().slice(0, 10);
    const twoDaysAgo = new Date(Date.now() - 2 * day).toISOString().slice(0, 10);
    await t.dataSource.query(
      `UPDATE target_metrics SET published_at = published_at - interval '1 day' WHERE post_id = $1`,
      [posts[2].id],
    );

    const res = await t.request('GET', `/api/analytics/channels/${channel}?from=${twoDaysAgo}&to=${today}`, {
      key: a.key,
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      channelId: channel,
      from: twoDaysAgo,
      to: today,
      totals: { posts: 3, likes: 17, reposts: 6, replies: 3, quotes: null, impressions: null },
      days: [
        { date: twoDaysAgo, posts: 0, likes: null, reposts: null, replies: null, quotes: null, impressions: null },
        { date: yesterday, posts: 1, likes: 10, reposts: 5, replies: 1, quotes: null, impressions: null },
        { date: today, posts: 2, likes: 7, reposts: 1, replies: 2, quotes: null, impressions: null },
      ],
    });

    const defaults = await t.request('GET', `/api/analytics/channels/${channel}`, { key: a.key });
    expect(defaults.status).toBe(200);
    expect(defaults.body.days).toHaveLength(30);
    expect(defaults.body.to).toBe(today);
    expect(defaults.body.totals).toEqual(res.body.totals);

    for (const query of ['from=2026-13-01', 'from=2026-02-30', 'to=yesterday', `from=${today}&to=${twoDaysAgo}`]) {
      const bad = await t.request('GET', `/api/analytics/channels/${channel}?${query}`, { key: a.key });
      expect(bad.status).toBe(400);
      expect(bad.body.error).toBe('VALIDATION_ERROR');
    }
    const long = await t.request('GET', `/api/analytics/channels/${channel}?from=2024-01-01&to=2025-06-01`, {
      key: a.key,
    });
    expect(long.status).toBe(400);
  });

  it('answers 404 to other workspaces and unknown ids on every route, 400 to malformed ids, 409 to unpublished posts', async () => {
    const post = await publish([masto]);
    const unknown = '00000000-0000-4000-8000-000000000000';
    const routes: Array<[string, string]> = [
      ['GET', `/api/analytics/posts/${post.id}`],
      ['GET', `/api/analytics/channels/${masto}`],
      ['POST', `/api/analytics/posts/${post.id}/refresh`],
    ];
    for (const [method, path] of routes) {
      const foreign = await t.request(method, path, { key: b.key });
      expect(foreign.status).toBe(404);
      expect(foreign.body.error).toBe('NOT_FOUND');
      const missing = await t.request(method, path.replace(post.id, unknown).replace(masto, unknown), { key: a.key });
      expect(missing.status).toBe(404);
      expect((await t.request(method, path, {})).status).toBe(401);
    }
    expect((await t.request('GET', '/api/analytics/posts/not-a-uuid', { key: a.key })).status).toBe(400);
    expect((await t.request('GET', '/api/analytics/channels/not-a-uuid', { key: a.key })).status).toBe(400);
    const unknownField = await t.request('POST', `/api/analytics/posts/${post.id}/refresh`, {
      key: a.key,
      body: { colour: 'red' },
    });
    expect(unknownField.status).toBe(400);
    const emptyBody = await t.request('POST', `/api/analytics/posts/${post.id}/refresh`, { key: a.key, body: {} });
    expect(emptyBody.status).toBe(202);

    const draft = await t.request('POST', '/api/posts', {
      key: a.key,
      body: { content: 'draft', channelIds: [masto] },
    });
    const conflict = await refresh(draft.body.id);
    expect(conflict.status).toBe(409);
    expect(conflict.body.error).toBe('CONFLICT');
    expect((await analytics(draft.body.id)).targets).toEqual([]);
  });

  it('disconnects the channel when the provider says its credentials are revoked during collection', async () => {
    const channel = await t.connectChannel(a.key, 'mastodon', {
      instanceUrl: mastodon.baseUrl,
      accessToken: 'tok-revoked',
    });
    const post = await publish([channel]);
    mastodon.setCounts(platformId(post, channel), { likes: 9 });
    mastodon.revokeToken('tok-revoked');
    expect((await refresh(post.id)).status).toBe(202);

    const disconnected = await waitFor(
      async () => (await t.request('GET', `/api/channels/${channel}`, { key: a.key })).body,
      (c) => c.status === 'disconnected',
    );
    expect(disconnected.status).toBe('disconnected');
    const events = (await t.request('GET', '/api/events?type=channel.disconnected&limit=100', { key: a.key })).body
      .data;
    expect(events.filter((e: any) => e.data.id === channel)).toEqual([
      expect.objectContaining({ data: expect.objectContaining({ id: channel, reason: 'credentials_revoked' }) }),
    ]);
    const after = await analytics(post.id);
    expect(after.targets[0]).toEqual(expect.objectContaining({ collectedAt: null }));
    expect(await updatedEvents(post.id)).toHaveLength(0);
  });

  it('delivers analytics.updated to a subscribed webhook, signed, with the analytics object as data', async () => {
    const ws = await t.createWorkspace('analytics-hook');
    const channel = await t.connectChannel(ws.key, 'mastodon', {
      instanceUrl: mastodon.baseUrl,
      accessToken: 'tok-hook',
    });
    const hook = await t.request('POST', '/api/webhooks', {
      key: ws.key,
      body: { url: receiver.url('/analytics'), events: ['analytics.updated'] },
    });
    expect(hook.status).toBe(201);
    const post = await publish([channel], ws.key);
    mastodon.setCounts(platformId(post, channel), { likes: 2, reposts: 1 });
    const result = await refreshAndWait(post.id, null, ws.key);

    const [got] = await receiver.waitForCount('/analytics', 1);
    const body = new StandardWebhook(hook.body.secret).verify(got.body, got.headers as Record<string, string>);
    expect(body).toEqual({
      id: expect.any(String),
      type: 'analytics.updated',
      timestamp: expect.any(String),
      workspaceId: ws.workspaceId,
      data: result,
    });
    expect(receiver.at('/analytics')).toHaveLength(1); // post.published was not subscribed
  });
});
