import { MastodonFake } from '../fakes/mastodon.fake';
import { TestApp } from '../support/test-app';

describe('externalId on posts', () => {
  let t: TestApp;
  let mastodon: MastodonFake;
  let a: { key: string };
  let b: { key: string };
  let chA: string;
  let chB: string;

  beforeAll(async () => {
    mastodon = new MastodonFake({ tokens: ['tok-a'] });
    await mastodon.start();
    t = await TestApp.start();
    a = await t.createWorkspace('ext-a');
    b = await t.createWorkspace('ext-b');
    chA = await t.connectChannel(a.key, 'mastodon', { instanceUrl: mastodon.baseUrl, accessToken: 'tok-a' });
    chB = await t.connectChannel(b.key, 'mastodon', { instanceUrl: mastodon.baseUrl, accessToken: 'tok-a' });
  });
  afterAll(async () => {
    await t?.close();
    await mastodon.stop();
  });

  const create = (key: string, channelId: string, externalId?: string, content = 'with a reference') =>
    t.request('POST', '/api/posts', { key, body: { content, channelIds: [channelId], externalId } });

  it('stores it, returns it, and finds the post by it', async () => {
    const created = await create(a.key, chA, 'cms-1');
    expect(created.status).toBe(201);
    expect(created.body.externalId).toBe('cms-1');
    await create(a.key, chA, 'cms-2');
    const found = await t.request('GET', '/api/posts?externalId=cms-1', { key: a.key });
    expect(found.status).toBe(200);
    expect(found.body.data.map((p: { id: string }) => p.id)).toEqual([created.body.id]);
    expect((await t.request('GET', `/api/posts/${created.body.id}`, { key: a.key })).body.externalId).toBe('cms-1');
  });

  it('answers 409 CONFLICT for a second post with the same externalId in the workspace, creating nothing', async () => {
    expect((await create(a.key, chA, 'dup-1', 'first')).status).toBe(201);
    const dup = await create(a.key, chA, 'dup-1', 'second');
    expect(dup.status).toBe(409);
    expect(dup.body).toEqual({ error: 'CONFLICT', message: expect.stringContaining('dup-1') });
    const rows = await t.dataSource.query(`SELECT count(*)::int AS n FROM posts WHERE content = 'second'`);
    expect(rows[0].n).toBe(0);
  });

  it('is unique per workspace only, and optional (many posts without one)', async () => {
    expect((await create(a.key, chA, 'shared-ref')).status).toBe(201);
    expect((await create(b.key, chB, 'shared-ref')).status).toBe(201);
    expect((await create(a.key, chA)).status).toBe(201);
    expect((await create(a.key, chA)).body.externalId).toBeNull();
    const other = await t.request('GET', '/api/posts?externalId=shared-ref', { key: b.key });
    expect(other.body.data).toHaveLength(1);
  });

  it('is kept by a replace that omits it, changed by one that gives it, and a taken one is 409', async () => {
    const post = (await create(a.key, chA, 'edit-1')).body;
    await create(a.key, chA, 'edit-taken');
    const kept = await t.request('PUT', `/api/posts/${post.id}`, {
      key: a.key,
      body: { content: 'edited', channelIds: [chA] },
    });
    expect(kept.status).toBe(200);
    expect(kept.body.externalId).toBe('edit-1');
    const taken = await t.request('PUT', `/api/posts/${post.id}`, {
      key: a.key,
      body: { content: 'edited', channelIds: [chA], externalId: 'edit-taken' },
    });
    expect(taken.status).toBe(409);
    const changed = await t.request('PUT', `/api/posts/${post.id}`, {
      key: a.key,
      body: { content: 'edited', channelIds: [chA], externalId: 'edit-2' },
    });
    expect(changed.body.externalId).toBe('edit-2');
  });

  it('validates its length in the body and the filter', async () => {
    expect((await create(a.key, chA, '')).status).toBe(400);
    expect((await create(a.key, chA, 'x'.repeat(256))).status).toBe(400);
    expect((await t.request('GET', `/api/posts?externalId=${'x'.repeat(256)}`, { key: a.key })).status).toBe(400);
  });
});
