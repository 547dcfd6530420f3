import type { FastifyReply, FastifyRequest } from 'fastify';
import { IdempotencyService } from '../../src/idempotency/idempotency.service';
import { MastodonFake } from '../fakes/mastodon.fake';
import { FAST_PUBLISHING_ENV, waitFor } from '../support/publishing-env';
import { TestApp } from '../support/test-app';

const CRASH_HEADER = 'x-test-crash-before-answer';

describe('Idempotency-Key on POST', () => {
  let t: TestApp;
  let mastodon: MastodonFake;
  let a: { key: string; workspaceId: string; apiKeyId: string };
  let channelId: string;
  let n = 0;
  const freshKey = () => `key-${Date.now()}-${++n}`;

  beforeAll(async () => {
    mastodon = new MastodonFake({ tokens: ['tok-a'], maxCharacters: 500 });
    await mastodon.start();
    t = await TestApp.start({
      env: FAST_PUBLISHING_ENV,
      // Simulates the process dying after the effect committed but before the client got the answer.
      beforeListen: (app) => {
        app
          .getHttpAdapter()
          .getInstance()
          .addHook('onSend', async (request: FastifyRequest, reply: FastifyReply) => {
            if (request.headers[CRASH_HEADER]) {
              request.raw.socket.destroy();
              await reply.hijack();
            }
          });
      },
    });
    a = await t.createWorkspace('idem-a');
    channelId = await t.connectChannel(a.key, 'mastodon', { instanceUrl: mastodon.baseUrl, accessToken: 'tok-a' });
  });
  afterAll(async () => {
    await t?.close();
    await mastodon.stop();
  });

  const countPosts = async (content: string) =>
    Number((await t.dataSource.query('SELECT count(*)::int AS n FROM posts WHERE content = $1', [content]))[0].n);
  const createPost = (key: string, content: string, extra: Record<string, string> = {}, apiKey = a.key) =>
    t.request('POST', '/api/posts', {
      key: apiKey,
      headers: { 'idempotency-key': key, ...extra },
      body: { content, channelIds: [channelId] },
    });

  it('20 concurrent identical requests with one key create one post; a later retry replays it', async () => {
    const key = freshKey();
    const results = await Promise.all(Array.from({ length: 20 }, () => createPost(key, 'twenty at once')));
    const statuses = results.map((r) => r.status);
    for (const s of statuses) expect([201, 409]).toContain(s);
    const created = results.filter((r) => r.status === 201);
    expect(created.length).toBeGreaterThanOrEqual(1);
    expect(new Set(created.map((r) => r.body.id)).size).toBe(1);
    for (const r of results.filter((x) => x.status === 409)) {
      expect(r.body).toEqual({ error: 'CONFLICT', message: expect.stringContaining('still in progress') });
    }
    expect(await countPosts('twenty at once')).toBe(1);

    const retry = await createPost(key, 'twenty at once');
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.body).toEqual(created[0].body);
    expect(await countPosts('twenty at once')).toBe(1);
  });

  it('a first answer is not marked as replayed', async () => {
    const res = await createPost(freshKey(), 'first answer');
    expect(res.status).toBe(201);
    expect(res.headers.get('idempotent-replayed')).toBeNull();
  });

  it('a crash between the effect and the answer, then a retry, replays instead of creating a second post', async () => {
    const key = freshKey();
    await expect(createPost(key, 'crash after commit', { [CRASH_HEADER]: '1' })).rejects.toThrow();
    expect(await countPosts('crash after commit')).toBe(1);
    const retry = await createPost(key, 'crash after commit');
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.body.content).toBe('crash after commit');
    expect(await countPosts('crash after commit')).toBe(1);
  });

  it('a failed request stores nothing: the same key may be retried with a corrected body', async () => {
    const key = freshKey();
    const bad = await t.request('POST', '/api/posts', {
      key: a.key,
      headers: { 'idempotency-key': key },
      body: { content: 'bad', channelIds: ['00000000-0000-4000-8000-000000000000'] },
    });
    expect(bad.status).toBe(400);
    const rows = await t.dataSource.query('SELECT 1 FROM idempotency_keys WHERE key = $1', [key]);
    expect(rows).toHaveLength(0);
    const good = await createPost(key, 'corrected');
    expect(good.status).toBe(201);
    expect(good.headers.get('idempotent-replayed')).toBeNull();
  });

  it('the same key with another body answers 422 IDEMPOTENCY_KEY_REUSED and creates nothing', async () => {
    const key = freshKey();
    expect((await createPost(key, 'original body')).status).toBe(201);
    const reused = await createPost(key, 'another body');
    expect(reused.status).toBe(422);
    expect(reused.body).toEqual({ error: 'IDEMPOTENCY_KEY_REUSED', message: expect.any(String) });
    expect(await countPosts('another body')).toBe(0);
    // Another endpoint under the same key is another request too.
    const elsewhere = await t.request('POST', '/api/webhooks', {
      key: a.key,
      headers: { 'idempotency-key': key },
      body: { url: 'https://example.com/hook', events: ['post.published'] },
    });
    expect(elsewhere.status).toBe(422);
  });

  it('the same body with the keys in another order is the same request', async () => {
    const key = freshKey();
    const one = await t.request('POST', '/api/posts', {
      key: a.key,
      headers: { 'idempotency-key': key, 'content-type': 'application/json' },
      rawBody: JSON.stringify({ content: 'ordered', channelIds: [channelId] }),
    });
    const two = await t.request('POST', '/api/posts', {
      key: a.key,
      headers: { 'idempotency-key': key, 'content-type': 'application/json' },
      rawBody: JSON.stringify({ channelIds: [channelId], content: 'ordered' }),
    });
    expect(one.status).toBe(201);
    expect(two.status).toBe(201);
    expect(two.headers.get('idempotent-replayed')).toBe('true');
    expect(two.body.id).toBe(one.body.id);
  });

  it('keys are scoped to the API key: another key with the same Idempotency-Key creates its own post', async () => {
    const key = freshKey();
    const other = await t.createWorkspace('idem-b');
    const otherChannel = await t.connectChannel(other.key, 'mastodon', {
      instanceUrl: mastodon.baseUrl,
      accessToken: 'tok-a',
    });
    const mine = await createPost(key, 'scoped');
    const theirs = await t.request('POST', '/api/posts', {
      key: other.key,
      headers: { 'idempotency-key': key },
      body: { content: 'scoped', channelIds: [otherChannel] },
    });
    expect(mine.status).toBe(201);
    expect(theirs.status).toBe(201);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
    expect(theirs.body.id).not.toBe(mine.body.id);
  });

  it('refuses keys over 255 characters with 400 and accepts 255', async () => {
    const long = await createPost('k'.repeat(256), 'too long key');
    expect(long.status).toBe(400);
    expect(long.body).toEqual({
      error: 'VALIDATION_ERROR',
      message: expect.stringContaining('255'),
      details: expect.any(Array),
    });
    expect(await countPosts('too long key')).toBe(0);
    expect((await createPost(`${'k'.repeat(250)}${++n}`.slice(0, 255), 'longest key')).status).toBe(201);
  });

  it('publishes a post created under a key once, after the commit', async () => {
    const key = freshKey();
    const body = { content: 'publish now with a key', channelIds: [channelId], publishNow: true };
    const first = await t.request('POST', '/api/posts', { key: a.key, headers: { 'idempotency-key': key }, body });
    const again = await t.request('POST', '/api/posts', { key: a.key, headers: { 'idempotency-key': key }, body });
    expect(first.status).toBe(201);
    expect(again.body.id).toBe(first.body.id);
    const post = await waitFor(
      async () => (await t.request('GET', `/api/posts/${first.body.id}`, { key: a.key })).body,
      (p) => p.status === 'published' || p.status === 'failed',
    );
    expect(post.status).toBe('published');
    expect(mastodon.statuses.filter((s) => s.text === 'publish now with a key')).toHaveLength(1);
  });

  it('expired keys are ignored (the request runs again) and pruned', async () => {
    const key = freshKey();
    expect((await createPost(key, 'expiring')).status).toBe(201);
    await t.dataSource.query(`UPDATE idempotency_keys SET expires_at = now() - interval '1 second' WHERE key = $1`, [
      key,
    ]);
    const again = await createPost(key, 'expiring');
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBeNull();
    expect(await countPosts('expiring')).toBe(2);

    await t.dataSource.query(`UPDATE idempotency_keys SET expires_at = now() - interval '1 second'`);
    const before = Number((await t.dataSource.query('SELECT count(*)::int AS n FROM idempotency_keys'))[0].n);
    expect(before).toBeGreaterThan(0);
    expect(await t.app.get(IdempotencyService).prune()).toBe(before);
    expect((await t.dataSource.query('SELECT count(*)::int AS n FROM idempotency_keys'))[0].n).toBe(0);
  });

  it('applies to the POST routes of every module (API keys, webhooks, media), not only posts', async () => {
    const key = freshKey();
    const send = (method: string, path: string, body: unknown) =>
      t.request(method, path, { key: a.key, headers: { 'idempotency-key': key }, body });
    const first = await send('POST', '/api/api-keys', { name: 'made once' });
    expect(first.status).toBe(201);
    const again = await send('POST', '/api/api-keys', { name: 'made once' });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.id).toBe(first.body.id);
    const made = await t.dataSource.query(`SELECT count(*)::int AS n FROM api_keys WHERE name = 'made once'`);
    expect(made[0].n).toBe(1);

    const hook = { url: 'https://example.com/hook', events: ['post.published'] };
    const webhookKey = freshKey();
    const w1 = await t.request('POST', '/api/webhooks', {
      key: a.key,
      headers: { 'idempotency-key': webhookKey },
      body: hook,
    });
    const w2 = await t.request('POST', '/api/webhooks', {
      key: a.key,
      headers: { 'idempotency-key': webhookKey },
      body: hook,
    });
    expect(w1.status).toBe(201);
    expect(w2.headers.get('idempotent-replayed')).toBe('true');
    expect(w2.body.id).toBe(w1.body.id);

    const upload = { filename: 'a.png', mimeType: 'image/png', size: 10 };
    const mediaKey = freshKey();
    const m1 = await t.request('POST', '/api/media/upload/initialize', {
      key: a.key,
      headers: { 'idempotency-key': mediaKey },
      body: upload,
    });
    const m2 = await t.request('POST', '/api/media/upload/initialize', {
      key: a.key,
      headers: { 'idempotency-key': mediaKey },
      body: upload,
    });
    expect(m1.status).toBe(201);
    expect(m2.headers.get('idempotent-replayed')).toBe('true');
    expect(m2.body.id).toBe(m1.body.id);
  });

  it('reads are not replayed: a GET with the header answers from the current state', async () => {
    const key = freshKey();
    const before = await t.request('GET', '/api/api-keys?limit=100', {
      key: a.key,
      headers: { 'idempotency-key': key },
    });
    await t.request('POST', '/api/api-keys', { key: a.key, body: { name: 'listed after' } });
    const after = await t.request('GET', '/api/api-keys?limit=100', {
      key: a.key,
      headers: { 'idempotency-key': key },
    });
    expect(after.headers.get('idempotent-replayed')).toBeNull();
    expect(after.body.data.length).toBe(before.body.data.length + 1);
  });

  it('documents the header on every JSON POST operation', async () => {
    const doc = (await t.request('GET', '/api/openapi.json')).body;
    const posts = Object.entries<any>(doc.paths).filter(([, item]) => item.post);
    expect(posts.length).toBeGreaterThan(5);
    for (const [path, item] of posts) {
      const multipart = Boolean(item.post.requestBody?.content?.['multipart/form-data']);
      const header = (item.post.parameters ?? []).find((p: any) => p.in === 'header' && p.name === 'Idempotency-Key');
      if (multipart) continue;
      expect({ path, header: header && { maxLength: header.schema.maxLength } }).toEqual({
        path,
        header: { maxLength: 255 },
      });
      expect(item.post.responses['422']).toBeDefined();
      expect(item.post.responses['409']).toBeDefined();
    }
  });
});
