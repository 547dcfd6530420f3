import { PublishQueue } from '../../src/posts/publish.queue';
import { MastodonFake } from '../fakes/mastodon.fake';
import { FAST_PUBLISHING_ENV, waitFor } from '../support/publishing-env';
import { TestApp } from '../support/test-app';

/**
 * Targets already due are enqueued as batch jobs (docs/adr/0044), and the outcome of a post's only
 * target, the post's settling and its event are one statement. Exactly once still holds when batch
 * jobs overlap, and the event built for that statement is the post as the API reads it.
 */
describe('due targets published from batch jobs', () => {
  let t: TestApp;
  let mastodon: MastodonFake;

  beforeAll(async () => {
    mastodon = new MastodonFake({ tokens: ['tok-a', 'tok-b'] });
    await mastodon.start();
    t = await TestApp.start({ env: FAST_PUBLISHING_ENV });
  });
  afterAll(async () => {
    await t?.close();
    await mastodon.stop();
  });

  it('publishes each target once however many batch jobs name it, with one event per post equal to the post read back', async () => {
    const { key } = await t.createWorkspace();
    const a = await t.connectChannel(key, 'mastodon', { instanceUrl: mastodon.baseUrl, accessToken: 'tok-a' });
    const b = await t.connectChannel(key, 'mastodon', { instanceUrl: mastodon.baseUrl, accessToken: 'tok-b' });
    // Scheduled an hour ahead (each target's own delayed job waits there), then made due now.
    const later = new Date(Date.now() + 3_600_000).toISOString();
    const postIds: string[] = [];
    for (let i = 0; i < 40; i++) {
      const created = await t.request('POST', '/api/posts', {
        key,
        body: { content: `batch ${i}`, channelIds: [a], scheduledAt: later },
      });
      expect(created.status).toBe(201);
      postIds.push(created.body.id);
    }
    // A post on two channels: its targets settle it together, the shared way.
    const both = await t.request('POST', '/api/posts', {
      key,
      body: { content: 'batch both', channelIds: [a, b], scheduledAt: later },
    });
    expect(both.status).toBe(201);
    postIds.push(both.body.id);
    await t.dataSource.query(`UPDATE post_targets SET due_at = now() WHERE post_id = ANY($1::uuid[])`, [postIds]);
    const due: Array<{ id: string; publication: number; attempts: number; due_at: Date }> = await t.dataSource.query(
      `SELECT id, publication, attempts, due_at FROM post_targets WHERE post_id = ANY($1::uuid[]) ORDER BY id`,
      [postIds],
    );
    expect(due).toHaveLength(42);
    const targets = due.map((r) => ({ id: r.id, publication: r.publication, attempts: r.attempts, dueAt: r.due_at }));

    // Overlapping batches: the middle targets are named by two jobs each, the whole list twice.
    const queue = t.app.get(PublishQueue);
    await Promise.all([
      queue.enqueue(targets.slice(0, 30)),
      queue.enqueue(targets.slice(12)),
      queue.enqueue(targets),
      queue.enqueue(targets),
    ]);

    const posts = await waitFor(
      async () => Promise.all(postIds.map(async (id) => (await t.request('GET', `/api/posts/${id}`, { key })).body)),
      (ps) => ps.every((p) => p.status === 'published'),
      120_000,
      250,
    );
    // Once on the network, and the target records that status (a claim that expired on a slow machine
    // may be taken over, but the idempotency key then finds the same status).
    for (const p of posts.slice(0, 40)) {
      const statuses = mastodon.statuses.filter((s) => s.text === p.content);
      expect(statuses).toHaveLength(1);
      expect(p.targets[0].platformPostId).toBe(statuses[0].id);
    }
    expect(mastodon.statuses.filter((s) => s.text === 'batch both')).toHaveLength(2);

    // One post.published event per post, carrying the post exactly as GET /posts/{id} reads it.
    const events = await t.request('GET', '/api/events?type=post.published&limit=100', { key });
    expect(events.status).toBe(200);
    const byPost = new Map<string, Array<{ data: unknown }>>();
    for (const e of events.body.data) byPost.set(e.data.id, [...(byPost.get(e.data.id) ?? []), e]);
    expect([...byPost.keys()].sort()).toEqual([...postIds].sort());
    for (const p of posts) {
      expect(byPost.get(p.id)).toHaveLength(1);
      expect(byPost.get(p.id)![0].data).toEqual(p);
    }
  }, 240_000);
});
