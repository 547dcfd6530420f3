import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { makePng } from '../factories/png.factory';
import { MediaClient } from '../media/media-support';
import { FAST_PUBLISHING_ENV, waitFor } from '../support/publishing-env';
import { TestApp } from '../support/test-app';

/** The built-in sandbox network through the API: connect, publish, timeline, failure switches, analytics. */
describe('sandbox provider', () => {
  let t: TestApp;
  let ws: { key: string; workspaceId: string };

  beforeAll(async () => {
    t = await TestApp.start({
      env: { ...FAST_PUBLISHING_ENV, ANALYTICS_INTERVAL_SECONDS: '3600', ANALYTICS_REFRESH_COOLDOWN_SECONDS: '1' },
    });
    ws = await t.createWorkspace();
  });
  afterAll(() => t?.close());

  const connect = (credentials: Record<string, unknown>, key = ws.key) =>
    t.request('POST', '/api/channels', { key, body: { provider: 'sandbox', credentials } });
  const timeline = (channelId: string, query = '', key = ws.key) =>
    t.request('GET', `/api/channels/${channelId}/sandbox/posts${query}`, { key });

  async function publish(channelId: string, content: string, mediaIds: string[] = []): Promise<any> {
    const created = await t.request('POST', '/api/posts', {
      key: ws.key,
      body: { content, channelIds: [channelId], mediaIds, publishNow: true },
    });
    expect(created.status).toBe(201);
    return waitFor(
      async () => (await t.request('GET', `/api/posts/${created.body.id}`, { key: ws.key })).body,
      (p) => p.status === 'published' || p.status === 'failed',
    );
  }

  it('connects with a name and optional limits, refusing anything else', async () => {
    const res = await connect({ name: 'My sandbox', maxCharacters: 20, maxMedia: 1 });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      provider: 'sandbox',
      name: 'My sandbox',
      handle: '@my-sandbox@sandbox',
      status: 'active',
      limits: { maxCharacters: 20, maxMedia: 1 },
    });
    expect(JSON.stringify(res.body)).not.toContain('accountId');
    expect((await connect({ name: 'Defaults' })).body.limits).toEqual({
      maxCharacters: 500,
      maxMedia: 4,
      threads: true,
      video: {
        maxBytes: 4 * 1024 ** 3,
        minDurationSeconds: 0,
        maxDurationSeconds: 600,
        mimeTypes: ['video/mp4', 'video/quicktime', 'video/webm'],
        maxPerPost: 1,
      },
      firstComment: true,
    });

    for (const bad of [
      {},
      { name: '' },
      { name: 'x', maxCharacters: 0 },
      { name: 'x', maxMedia: '2' },
      { name: 'x', accountId: 'y' },
    ]) {
      const refused = await connect(bad);
      expect({ bad, status: refused.status, error: refused.body.error }).toEqual({
        bad,
        status: 400,
        error: 'VALIDATION_ERROR',
      });
    }
  });

  it('validates posts against the channel limits', async () => {
    const channel = (await connect({ name: 'Short', maxCharacters: 10 })).body.id;
    const res = await t.request('POST', '/api/posts/validate', {
      key: ws.key,
      body: { content: 'this is longer than ten', channelIds: [channel] },
    });
    expect(res.body.valid).toBe(false);
    expect(res.body.problems).toEqual([
      expect.objectContaining({
        channelId: channel,
        field: 'content',
        message: expect.stringContaining('at most 10 characters'),
      }),
    ]);
  });

  it('stores published posts on the channel timeline, newest first, with the media bytes it received', async () => {
    const channel = (await connect({ name: 'Timeline' })).body.id;
    const png = makePng(3, 2);
    const media = new MediaClient(t, ws.key);
    const init = await media.initialize({ filename: 'a.png', mimeType: 'image/png', size: png.length });
    await media.chunk(init.body.id, 0, png);
    expect((await media.finalize(init.body.id)).body.status).toBe('ready');

    const first = await publish(channel, 'first', [init.body.id]);
    expect(first.status).toBe('published');
    const second = await publish(channel, 'second');
    const third = await publish(channel, 'third');

    const page1 = await timeline(channel, '?limit=2');
    expect(page1.status).toBe(200);
    expect(page1.body.data.map((p: any) => p.content)).toEqual(['third', 'second']);
    expect(page1.body.nextCursor).toEqual(expect.any(String));
    const page2 = await timeline(channel, `?limit=2&cursor=${page1.body.nextCursor}`);
    expect(page2.body).toEqual({
      data: [
        {
          id: first.targets[0].platformPostId,
          content: 'first',
          media: [
            {
              id: init.body.id,
              mimeType: 'image/png',
              size: png.length,
              sha256: createHash('sha256').update(png).digest('hex'),
              durationMs: null,
            },
          ],
          inReplyTo: null,
          options: { visibility: 'public', contentWarning: null },
          createdAt: expect.stringMatching(/Z$/),
        },
      ],
      nextCursor: null,
    });
    expect(page1.body.data.map((p: any) => p.id)).toEqual([
      third.targets[0].platformPostId,
      second.targets[0].platformPostId,
    ]);
  });

  it('#fail-transient fails twice, then publishes once', async () => {
    const channel = (await connect({ name: 'Flaky' })).body.id;
    const post = await publish(channel, 'try again #fail-transient');
    expect(post.status).toBe('published');
    expect(post.targets[0]).toMatchObject({ status: 'published', attempts: 3, error: null });
    const items = (await timeline(channel)).body.data;
    expect(items.map((p: any) => p.id)).toEqual([post.targets[0].platformPostId]);
  });

  it('#fail-permanent fails at once with CONTENT_REJECTED', async () => {
    const channel = (await connect({ name: 'Strict' })).body.id;
    const post = await publish(channel, 'no way #fail-permanent');
    expect(post.status).toBe('failed');
    expect(post.targets[0]).toMatchObject({
      status: 'failed',
      attempts: 1,
      error: { code: 'CONTENT_REJECTED', message: expect.stringContaining('#fail-permanent') },
    });
    expect((await timeline(channel)).body.data).toEqual([]);
  });

  it('#revoke fails with CREDENTIALS_REVOKED and disconnects the channel', async () => {
    const channel = (await connect({ name: 'Revoked' })).body.id;
    const post = await publish(channel, 'bye #revoke');
    expect(post.targets[0].error.code).toBe('CREDENTIALS_REVOKED');
    const after = await t.request('GET', `/api/channels/${channel}`, { key: ws.key });
    expect(after.body.status).toBe('disconnected');
    const events = (await t.request('GET', '/api/events?type=channel.disconnected', { key: ws.key })).body.data;
    expect(events.map((e: any) => [e.data.id, e.data.reason])).toContainEqual([channel, 'credentials_revoked']);
    expect((await timeline(channel)).status).toBe(200); // still readable
  });

  it('serves timelines only for sandbox channels of the workspace', async () => {
    const channel = (await connect({ name: 'Mine' })).body.id;
    const other = await t.createWorkspace();
    expect((await timeline(channel, '', other.key)).status).toBe(404);
    expect((await timeline('5d2b4a0e-0000-4000-8000-000000000000')).status).toBe(404);
    expect((await timeline('not-a-uuid')).body.error).toBe('VALIDATION_ERROR');
    expect((await timeline(channel, '?cursor=bogus')).body.error).toBe('VALIDATION_ERROR');
  });

  it('returns analytics that grow over time, recording analytics.updated', async () => {
    const channel = (await connect({ name: 'Popular' })).body.id;
    const post = await publish(channel, 'count me');
    await sleep(1_200);
    const read = async () => {
      expect((await t.request('POST', `/api/analytics/posts/${post.id}/refresh`, { key: ws.key })).status).toBe(202);
      return waitFor(
        async () => (await t.request('GET', `/api/analytics/posts/${post.id}`, { key: ws.key })).body,
        (a) => a.collectedAt !== null,
      );
    };
    const first = await read();
    expect(first.totals.likes).toBeGreaterThan(0);
    await sleep(3_000);
    const second = await waitFor(read, (a) => a.collectedAt > first.collectedAt, 20_000, 1_100);
    expect(second.totals.likes).toBeGreaterThan(first.totals.likes);
    const events = (await t.request('GET', '/api/events?type=analytics.updated', { key: ws.key })).body.data;
    expect(events.filter((e: any) => e.data.postId === post.id).length).toBeGreaterThanOrEqual(2);
  });
});

describe('sandbox provider with SANDBOX_PROVIDER=false', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await TestApp.start({ env: { SANDBOX_PROVIDER: 'false' } });
  });
  afterAll(async () => {
    await t?.close();
    process.env.SANDBOX_PROVIDER = 'true';
  });

  it('refuses to connect a sandbox channel', async () => {
    const { key } = await t.createWorkspace();
    const res = await t.request('POST', '/api/channels', {
      key,
      body: { provider: 'sandbox', credentials: { name: 'x' } },
    });
    expect(res.status).toBe(400);
    expect(res.body.message).toContain('SANDBOX_PROVIDER=false');
  });
});
