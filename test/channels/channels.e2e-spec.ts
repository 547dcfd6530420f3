import { BlueskyFake } from '../fakes/bluesky.fake';
import { MastodonFake } from '../fakes/mastodon.fake';
import { TestApp } from '../support/test-app';

describe('channels', () => {
  let t: TestApp;
  let mastodon: MastodonFake;
  let bluesky: BlueskyFake;
  let a: { key: string; workspaceId: string };
  let b: { key: string; workspaceId: string };

  beforeAll(async () => {
    mastodon = new MastodonFake({
      tokens: [{ token: 'tok-alice', username: 'alice', displayName: 'Alice M' }],
      maxCharacters: 777,
    });
    bluesky = new BlueskyFake({
      accounts: [{ identifier: 'bob.test', password: 'app-pass-bob', handle: 'bob.test', displayName: 'Bob B' }],
    });
    await Promise.all([mastodon.start(), bluesky.start()]);
    t = await TestApp.start();
    a = await t.createWorkspace('chan-a');
    b = await t.createWorkspace('chan-b');
  });
  afterAll(async () => {
    await t.close();
    await Promise.all([mastodon.stop(), bluesky.stop()]);
  });

  const connectMastodon = (key: string, token = 'tok-alice') =>
    t.request('POST', '/api/channels', {
      key,
      body: { provider: 'mastodon', credentials: { instanceUrl: mastodon.baseUrl, accessToken: token } },
    });
  const connectBluesky = (key: string, password = 'app-pass-bob') =>
    t.request('POST', '/api/channels', {
      key,
      body: {
        provider: 'bluesky',
        credentials: { identifier: 'bob.test', appPassword: password, serviceUrl: bluesky.baseUrl },
      },
    });

  it('connects a Mastodon account with its profile and the instance limits', async () => {
    const res = await connectMastodon(a.key);
    expect(res.status).toBe(201);
    const host = new URL(mastodon.baseUrl).host;
    expect(res.body).toEqual(
      expect.objectContaining({
        id: expect.any(String),
        provider: 'mastodon',
        name: 'Alice M',
        handle: `@alice@${host}`,
        status: 'active',
        limits: {
          maxCharacters: 777,
          maxMedia: 4,
          threads: true,
          video: expect.objectContaining({ maxPerPost: 1, mixWithImages: false }),
          firstComment: true,
        },
        disconnectedAt: null,
      }),
    );
    expect(JSON.stringify(res.body)).not.toContain('tok-alice');
  });

  it('connects a Bluesky account', async () => {
    const res = await connectBluesky(a.key);
    expect(res.status).toBe(201);
    expect(res.body).toEqual(
      expect.objectContaining({
        provider: 'bluesky',
        name: 'Bob B',
        handle: '@bob.test',
        status: 'active',
        limits: {
          maxCharacters: 300,
          maxMedia: 4,
          threads: true,
          video: expect.objectContaining({ maxDurationSeconds: 180, maxPerPost: 1 }),
          firstComment: true,
        },
      }),
    );
    expect(res.body.profileUrl).toBe('https://bsky.app/profile/bob.test');
  });

  it('answers bad credentials with a clear 400 naming the provider, never 401 or 500', async () => {
    const m = await connectMastodon(a.key, 'wrong-token');
    expect(m.status).toBe(400);
    expect(m.body.error).toBe('VALIDATION_ERROR');
    expect(m.body.message).toMatch(/mastodon/i);
    const bsky = await connectBluesky(a.key, 'wrong-password');
    expect(bsky.status).toBe(400);
    expect(bsky.body.message).toMatch(/bluesky/i);
    const shape = await t.request('POST', '/api/channels', {
      key: a.key,
      body: { provider: 'mastodon', credentials: { instanceUrl: 'not a url' } },
    });
    expect(shape.status).toBe(400);
    expect(shape.body.details.map((d: { field: string }) => d.field).sort()).toEqual([
      'credentials.accessToken',
      'credentials.instanceUrl',
    ]);
    const provider = await t.request('POST', '/api/channels', {
      key: a.key,
      body: { provider: 'myspace', credentials: {} },
    });
    expect(provider.status).toBe(400);
  });

  it('stores no plaintext credential in the database', async () => {
    const rows: Array<Record<string, unknown>> = await t.dataSource.query('SELECT * FROM channels');
    const dump = JSON.stringify(rows);
    expect(dump).not.toContain('tok-alice');
    expect(dump).not.toContain('app-pass-bob');
    for (const row of rows) expect(String(row.credentials)).toMatch(/^v1\./);
  });

  it('lists with filters and keyset pagination, and gets one', async () => {
    const all = await t.request('GET', '/api/channels', { key: a.key });
    expect(all.status).toBe(200);
    expect(all.body.data).toHaveLength(2);
    expect(all.body.nextCursor).toBeNull();
    const onlyBsky = await t.request('GET', '/api/channels?provider=bluesky', { key: a.key });
    expect(onlyBsky.body.data.map((c: { provider: string }) => c.provider)).toEqual(['bluesky']);
    const page1 = await t.request('GET', '/api/channels?limit=1', { key: a.key });
    const page2 = await t.request('GET', `/api/channels?limit=1&cursor=${page1.body.nextCursor}`, { key: a.key });
    expect(page1.body.data[0].id).not.toBe(page2.body.data[0].id);
    expect(page2.body.nextCursor).toBeNull();
    const one = await t.request('GET', `/api/channels/${page1.body.data[0].id}`, { key: a.key });
    expect(one.body).toEqual(page1.body.data[0]);
    expect((await t.request('GET', '/api/channels?status=paused', { key: a.key })).status).toBe(400);
  });

  it('disconnects once: wipes credentials, records one channel.disconnected event, stays readable', async () => {
    const list = await t.request('GET', '/api/channels?provider=mastodon', { key: a.key });
    const id = list.body.data[0].id;
    const del = await t.request('DELETE', `/api/channels/${id}`, { key: a.key });
    expect(del.status).toBe(204);
    const again = await t.request('DELETE', `/api/channels/${id}`, { key: a.key });
    expect(again.status).toBe(204);

    const channel = await t.request('GET', `/api/channels/${id}`, { key: a.key });
    expect(channel.body.status).toBe('disconnected');
    expect(channel.body.disconnectedAt).toEqual(expect.any(String));
    const [row] = await t.dataSource.query('SELECT credentials FROM channels WHERE id = $1', [id]);
    expect(row.credentials).toBeNull();

    const events = await t.request('GET', '/api/events?type=channel.disconnected', { key: a.key });
    expect(events.status).toBe(200);
    expect(events.body.data).toHaveLength(1);
    expect(events.body.data[0]).toEqual(
      expect.objectContaining({
        type: 'channel.disconnected',
        workspaceId: a.workspaceId,
        timestamp: expect.any(String),
        data: expect.objectContaining({ id, status: 'disconnected', reason: 'user_request' }),
      }),
    );
    expect((await t.request('GET', '/api/channels?status=disconnected', { key: a.key })).body.data).toHaveLength(1);
  });

  it('reactivates the same channel when the account is connected again', async () => {
    const before = await t.request('GET', '/api/channels?provider=mastodon', { key: a.key });
    const res = await connectMastodon(a.key);
    expect(res.status).toBe(200);
    expect(res.body.id).toBe(before.body.data[0].id);
    expect(res.body.status).toBe('active');
    expect(res.body.disconnectedAt).toBeNull();
  });

  it("gives workspace B 404 for workspace A's channel, on every route", async () => {
    const id = (await t.request('GET', '/api/channels', { key: a.key })).body.data[0].id;
    expect((await t.request('GET', `/api/channels/${id}`, { key: b.key })).status).toBe(404);
    const del = await t.request('DELETE', `/api/channels/${id}`, { key: b.key });
    expect(del.status).toBe(404);
    expect(del.body).toEqual({ error: 'NOT_FOUND', message: 'Channel not found' });
    expect((await t.request('GET', '/api/channels', { key: b.key })).body.data).toEqual([]);
    expect((await t.request('GET', '/api/events', { key: b.key })).body.data).toEqual([]);
    expect((await t.request('GET', `/api/channels/${id}`, { key: a.key })).body.status).toBe('active');
  });
});

describe('channels with OUTBOUND_ALLOW_PRIVATE=false', () => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await TestApp.start({ env: { OUTBOUND_ALLOW_PRIVATE: 'false' } });
    ({ key } = await t.createWorkspace());
  });
  afterAll(async () => {
    await t.close();
    process.env.OUTBOUND_ALLOW_PRIVATE = 'true';
  });

  it.each(['http://127.0.0.1:9', 'http://10.0.0.1', 'http://169.254.169.254', 'http://[::1]:9', 'http://localhost:9'])(
    'refuses an instance URL at %s',
    async (instanceUrl) => {
      const res = await t.request('POST', '/api/channels', {
        key,
        body: { provider: 'mastodon', credentials: { instanceUrl, accessToken: 'x' } },
      });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('VALIDATION_ERROR');
      expect(res.body.message).toMatch(/not allowed|private/i);
    },
  );
});
