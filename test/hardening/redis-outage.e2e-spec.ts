import { setTimeout as sleep } from 'node:timers/promises';
import { MastodonFake } from '../fakes/mastodon.fake';
import { PrivateRedis } from '../support/private-redis';
import { FAST_PUBLISHING_ENV, waitFor } from '../support/publishing-env';
import { TestApp } from '../support/test-app';

/**
 * Redis stops while clients create, edit and delete posts: requests answer within 2 s (Postgres is
 * the record), and what was scheduled or published-now during the outage publishes once Redis is back.
 */
describe('posts during a Redis outage', () => {
  let redis: PrivateRedis;
  let mastodon: MastodonFake;
  let t: TestApp;
  let key!: string;
  let channelId: string;

  beforeAll(async () => {
    redis = new PrivateRedis();
    await redis.start();
    mastodon = new MastodonFake({ tokens: [{ token: 'tok-outage', username: 'outage', displayName: 'Outage' }] });
    await mastodon.start();
    t = await TestApp.start({ env: { ...FAST_PUBLISHING_ENV, REDIS_URL: redis.url, REDIS_PREFIX: 'outage' } });
    ({ key } = await t.createWorkspace());
    channelId = await t.connectChannel(key, 'mastodon', { instanceUrl: mastodon.baseUrl, accessToken: 'tok-outage' });
  });
  afterAll(async () => {
    await redis.start().catch(() => undefined);
    await t.close();
    await mastodon.stop();
    await redis.destroy();
  });

  async function timed(method: string, path: string, body?: unknown) {
    const started = Date.now();
    const res = await t.request(method, path, { key, body });
    return { ...res, ms: Date.now() - started };
  }

  it('answers create, update and delete within 2 s and publishes what was due once Redis is back', async () => {
    await redis.stop();
    await sleep(300);

    const now = await timed('POST', '/api/posts', {
      content: 'published now, Redis down',
      channelIds: [channelId],
      publishNow: true,
    });
    const scheduled = await timed('POST', '/api/posts', {
      content: 'scheduled, Redis down',
      channelIds: [channelId],
      scheduledAt: new Date(Date.now() + 3_000).toISOString(),
    });
    const draft = await timed('POST', '/api/posts', { content: 'draft, Redis down', channelIds: [channelId] });
    const updated = await timed('PUT', `/api/posts/${draft.body.id}`, {
      content: 'rescheduled, Redis down',
      channelIds: [channelId],
      scheduledAt: new Date(Date.now() + 2_000).toISOString(),
    });
    const doomed = await timed('POST', '/api/posts', {
      content: 'deleted, Redis down',
      channelIds: [channelId],
      scheduledAt: new Date(Date.now() + 2_000).toISOString(),
    });
    const deleted = await timed('DELETE', `/api/posts/${doomed.body.id}`);

    for (const r of [now, scheduled, draft, doomed]) expect(r.status).toBe(201);
    expect(updated.status).toBe(200);
    expect(deleted.status).toBe(204);
    for (const r of [now, scheduled, draft, updated, doomed, deleted]) expect(r.ms).toBeLessThan(2_000);
    expect(now.body.status).toBe('publishing');
    expect(updated.body.status).toBe('scheduled');
    expect(mastodon.statuses).toHaveLength(0);

    await sleep(1_500);
    await redis.start();

    const ids = [now.body.id, scheduled.body.id, draft.body.id] as string[];
    await waitFor(
      () => Promise.all(ids.map((id) => t.request('GET', `/api/posts/${id}`, { key }).then((r) => r.body.status))),
      (statuses) => statuses.every((s) => s === 'published'),
      30_000,
      200,
    );
    await sleep(1_500); // a duplicate would have shown up by now
    const texts = mastodon.statuses.map((s) => s.text).sort();
    expect(texts).toEqual(['published now, Redis down', 'rescheduled, Redis down', 'scheduled, Redis down']);
    expect((await t.request('GET', `/api/posts/${doomed.body.id}`, { key })).status).toBe(404);
  });
});
