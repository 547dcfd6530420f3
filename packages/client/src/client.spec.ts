import { SocialPublishing } from './client';
import type { ProviderOptions } from './provider-options';
import { SocialPublishingError } from './errors';

/** A fetch that answers from a script and records what it was asked. */
function stubFetch(handler: (req: Request, n: number) => Response | Promise<Response>) {
  const calls: Request[] = [];
  const fetch = async (req: Request) => {
    calls.push(req.clone());
    return handler(req, calls.length);
  };
  return { fetch, calls };
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });

const POST = { id: '11111111-1111-4111-8111-111111111111', content: 'x', status: 'draft' };

function client(fetch: (req: Request) => Promise<Response>, extra: { maxRetries?: number; timeoutMs?: number } = {}) {
  return new SocialPublishing({ apiKey: 'spk_test', baseUrl: 'http://api.test/api', fetch, ...extra });
}

describe('SocialPublishing requests', () => {
  beforeEach(() => jest.useRealTimers());

  it('sends the key to the document paths under baseUrl and returns the body', async () => {
    const s = stubFetch(() =>
      json(200, POST, {
        'x-ratelimit-limit': '100',
        'x-ratelimit-remaining': '99',
        'x-ratelimit-reset': '1795000000',
        'x-ratelimit-burst': '200',
      }),
    );
    const sp = client(s.fetch);
    expect(sp.rateLimit).toBeUndefined();
    await expect(sp.posts.get(POST.id)).resolves.toEqual(POST);
    expect(s.calls[0].url).toBe(`http://api.test/api/posts/${POST.id}`);
    expect(s.calls[0].headers.get('x-api-key')).toBe('spk_test');
    expect(sp.rateLimit).toEqual({ limit: 100, remaining: 99, reset: 1795000000, burst: 200 });
  });

  it('acts in a workspace: the workspaceId option and forWorkspace() send X-Workspace-Id, the client without none', async () => {
    const W = '22222222-2222-4222-8222-222222222222';
    const s = stubFetch(() => json(200, POST));
    const sp = client(s.fetch);
    await sp.posts.get(POST.id);
    await sp.forWorkspace(W).posts.get(POST.id);
    await new SocialPublishing({
      apiKey: 'spk_test',
      baseUrl: 'http://api.test/api',
      fetch: s.fetch,
      workspaceId: W,
    }).posts.get(POST.id);
    expect(s.calls.map((c) => c.headers.get('x-workspace-id'))).toEqual([null, W, W]);
    expect(s.calls.every((c) => c.headers.get('x-api-key') === 'spk_test')).toBe(true);
  });

  it('workspaces: create, list by externalId, usage and erase on the document paths', async () => {
    const W = '22222222-2222-4222-8222-222222222222';
    const s = stubFetch((req) =>
      req.method === 'DELETE' ? new Response(null, { status: 202 }) : json(req.method === 'POST' ? 201 : 200, {}),
    );
    const sp = client(s.fetch);
    await sp.workspaces.create({ name: 'Acme', externalId: 'c-1' });
    await sp.workspaces.list({ externalId: 'c-1' });
    await sp.workspaces.usage(W, { from: '2026-11-01T00:00:00Z' });
    await sp.workspaces.delete(W);
    expect(s.calls.map((c) => `${c.method} ${c.url}`)).toEqual([
      'POST http://api.test/api/workspaces',
      'GET http://api.test/api/workspaces?externalId=c-1',
      `GET http://api.test/api/workspaces/${W}/usage?from=2026-11-01T00%3A00%3A00Z`,
      `DELETE http://api.test/api/workspaces/${W}`,
    ]);
  });

  it('refuses a baseUrl without /api', () => {
    expect(() => new SocialPublishing({ apiKey: 'k', baseUrl: 'http://api.test' })).toThrow(/end with \/api/);
  });

  it('throws the service error with code, message, details and request id', async () => {
    const s = stubFetch(() =>
      json(
        400,
        {
          error: 'VALIDATION_ERROR',
          message: 'content: must be a string',
          details: [{ field: 'content', message: 'must be a string' }],
        },
        { 'x-request-id': 'req-1' },
      ),
    );
    const err = await client(s.fetch)
      .posts.create({ content: 1 as unknown as string, channelIds: [] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SocialPublishingError);
    expect(err).toMatchObject({
      status: 400,
      code: 'VALIDATION_ERROR',
      message: 'content: must be a string',
      details: [{ field: 'content', message: 'must be a string' }],
      requestId: 'req-1',
    });
    expect(s.calls).toHaveLength(1);
  });

  it('retries 429 after Retry-After, for any method, up to maxRetries', async () => {
    const started = Date.now();
    const s = stubFetch((_req, n) =>
      n < 3
        ? json(429, { error: 'RATE_LIMIT_EXCEEDED', message: 'slow down' }, { 'retry-after': '0.05' })
        : json(201, POST),
    );
    await expect(client(s.fetch).posts.create({ content: 'x', channelIds: [POST.id] })).resolves.toEqual(POST);
    expect(s.calls).toHaveLength(3);
    expect(Date.now() - started).toBeGreaterThanOrEqual(90);
    // The body is sent again on every attempt.
    for (const c of s.calls) expect(await c.json()).toEqual({ content: 'x', channelIds: [POST.id] });
  });

  it('gives up on 429 after maxRetries with retryAfter set', async () => {
    const s = stubFetch(() =>
      json(429, { error: 'RATE_LIMIT_EXCEEDED', message: 'slow down' }, { 'retry-after': '0' }),
    );
    const err = await client(s.fetch, { maxRetries: 2 })
      .posts.list()
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 429, code: 'RATE_LIMIT_EXCEEDED', retryAfter: 0 });
    expect(s.calls).toHaveLength(3);
  });

  it('retries 5xx and network failures for GET, PUT and DELETE', async () => {
    for (const [method, run] of [
      ['GET', (sp: SocialPublishing) => sp.posts.get(POST.id)],
      ['PUT', (sp: SocialPublishing) => sp.posts.update(POST.id, { content: 'y', channelIds: [POST.id] })],
      ['DELETE', (sp: SocialPublishing) => sp.posts.delete(POST.id)],
    ] as const) {
      const s = stubFetch((_req, n) => {
        if (n === 1) throw new TypeError('fetch failed');
        if (n === 2) return json(503, { error: 'SERVICE_UNAVAILABLE', message: 'busy' });
        return method === 'DELETE' ? new Response(null, { status: 204 }) : json(200, POST);
      });
      await run(client(s.fetch));
      expect({ method, calls: s.calls.length }).toEqual({ method, calls: 3 });
    }
  });

  it('sends an Idempotency-Key with every POST and retries it with the same key after a 5xx or a network failure', async () => {
    const flaky = stubFetch((_req, n) =>
      n === 1 ? json(500, { error: 'INTERNAL_ERROR', message: 'Internal server error' }) : json(201, POST),
    );
    await expect(client(flaky.fetch).posts.create({ content: 'x', channelIds: [POST.id] })).resolves.toMatchObject({
      id: POST.id,
    });
    expect(flaky.calls).toHaveLength(2);
    const keys = flaky.calls.map((c) => c.headers.get('idempotency-key'));
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(keys[1]).toBe(keys[0]);
    const offline = stubFetch((_req, n) => {
      if (n === 1) throw new TypeError('fetch failed');
      return json(201, POST);
    });
    await client(offline.fetch).posts.create({ content: 'x', channelIds: [POST.id] });
    expect(offline.calls).toHaveLength(2);
    expect(offline.calls[1].headers.get('idempotency-key')).toBe(offline.calls[0].headers.get('idempotency-key'));
    // Another call is another operation: another key.
    const two = stubFetch(() => json(201, POST));
    await client(two.fetch).posts.create({ content: 'x', channelIds: [POST.id] });
    await client(two.fetch).posts.create({ content: 'x', channelIds: [POST.id] });
    expect(two.calls[0].headers.get('idempotency-key')).not.toBe(two.calls[1].headers.get('idempotency-key'));
  });

  it('times out an attempt that gets no answer', async () => {
    const s = stubFetch(
      (req) =>
        new Promise<Response>((_resolve, reject) =>
          req.signal.addEventListener('abort', () => reject(new Error('aborted'))),
        ),
    );
    await expect(client(s.fetch, { timeoutMs: 50, maxRetries: 0 }).posts.get(POST.id)).rejects.toMatchObject({
      status: 0,
      code: 'TIMEOUT',
    });
  });
});

describe('channels: posting schedules', () => {
  const ID = '33333333-3333-4333-8333-333333333333';

  it('reads and replaces the schedule and lists free slots on the channel paths', async () => {
    const schedule = {
      channelId: ID,
      timezone: 'Europe/Berlin',
      slots: [{ day: 'mon', time: '09:00' }],
      updatedAt: 'x',
    };
    const s = stubFetch((req) =>
      json(200, req.url.includes('/slots') ? { data: [{ at: '2099-01-05T08:00:00.000Z' }] } : schedule),
    );
    const sp = client(s.fetch);
    await expect(sp.channels.schedule(ID)).resolves.toEqual(schedule);
    await expect(
      sp.channels.setSchedule(ID, { timezone: 'Europe/Berlin', slots: [{ day: 'mon', time: '09:00' }] }),
    ).resolves.toEqual(schedule);
    await expect(sp.channels.freeSlots(ID, { from: '2099-01-01T00:00:00Z', limit: 1 })).resolves.toEqual({
      data: [{ at: '2099-01-05T08:00:00.000Z' }],
    });
    expect(s.calls.map((c) => `${c.method} ${c.url}`)).toEqual([
      `GET http://api.test/api/channels/${ID}/schedule`,
      `PUT http://api.test/api/channels/${ID}/schedule`,
      `GET http://api.test/api/channels/${ID}/slots?from=2099-01-01T00%3A00%3A00Z&limit=1`,
    ]);
    expect(await s.calls[1].json()).toEqual({ timezone: 'Europe/Berlin', slots: [{ day: 'mon', time: '09:00' }] });
  });

  it('approves and rejects posts, reads and changes the workspace setting, creates scoped keys', async () => {
    const s = stubFetch(() => json(200, POST));
    const sp = client(s.fetch);
    await sp.posts.approve(ID);
    await sp.posts.reject(ID, 'Wrong tone');
    await sp.workspace.get();
    await sp.workspace.update({ approvalRequired: true });
    await sp.apiKeys.create({ name: 'cms', scopes: ['posts:read', 'posts:write'] });
    expect(s.calls.map((c) => `${c.method} ${c.url}`)).toEqual([
      `POST http://api.test/api/posts/${ID}/approve`,
      `POST http://api.test/api/posts/${ID}/reject`,
      'GET http://api.test/api/workspace',
      'PATCH http://api.test/api/workspace',
      'POST http://api.test/api/api-keys',
    ]);
    expect(await s.calls[1].json()).toEqual({ reason: 'Wrong tone' });
    expect(await s.calls[3].json()).toEqual({ approvalRequired: true });
    expect(await s.calls[4].json()).toEqual({ name: 'cms', scopes: ['posts:read', 'posts:write'] });
  });
});

describe('pagination', () => {
  it('list returns one page; iterate follows nextCursor through every page with the same filters', async () => {
    const pages: Record<string, { data: Array<{ id: string }>; nextCursor: string | null }> = {
      '': { data: [{ id: 'a' }, { id: 'b' }], nextCursor: 'c1' },
      c1: { data: [{ id: 'c' }, { id: 'd' }], nextCursor: 'c2' },
      c2: { data: [{ id: 'e' }], nextCursor: null },
    };
    const s = stubFetch((req) => json(200, pages[new URL(req.url).searchParams.get('cursor') ?? '']));
    const sp = client(s.fetch);
    await expect(sp.posts.list({ status: 'published', limit: 2 })).resolves.toEqual(pages['']);
    const ids: string[] = [];
    for await (const post of sp.posts.iterate({ status: 'published', limit: 2 })) ids.push(post.id);
    expect(ids).toEqual(['a', 'b', 'c', 'd', 'e']);
    const queries = s.calls.slice(1).map((c) => Object.fromEntries(new URL(c.url).searchParams));
    expect(queries).toEqual([
      { status: 'published', limit: '2' },
      { status: 'published', limit: '2', cursor: 'c1' },
      { status: 'published', limit: '2', cursor: 'c2' },
    ]);
    const pageSizes: number[] = [];
    for await (const page of sp.channels.iterate().pages()) pageSizes.push(page.data.length);
    expect(pageSizes).toEqual([2, 2, 1]);
  });

  it('stops fetching when the loop breaks', async () => {
    const s = stubFetch(() => json(200, { data: [{ id: 'a' }, { id: 'b' }], nextCursor: 'more' }));
    for await (const event of client(s.fetch).events.iterate()) {
      expect(event).toEqual({ id: 'a' });
      break;
    }
    expect(s.calls).toHaveLength(1);
  });
});

describe('media.uploadFromUrl', () => {
  const ID = '22222222-2222-4222-8222-222222222222';
  const item = (status: string, extra: Record<string, unknown> = {}) => ({ id: ID, status, ...extra });

  it('returns the ready item of a 201 at once', async () => {
    const s = stubFetch(() => json(201, item('ready')));
    await expect(client(s.fetch).media.uploadFromUrl({ url: 'https://cdn.test/a.png' })).resolves.toEqual(
      item('ready'),
    );
    expect(s.calls).toHaveLength(1);
    expect(s.calls[0].method).toBe('POST');
    expect(s.calls[0].url).toBe('http://api.test/api/media/upload/url');
    expect(await s.calls[0].json()).toEqual({ url: 'https://cdn.test/a.png' });
  });

  it('on a 202 reads the processing item until it is ready', async () => {
    const s = stubFetch((_req, n) =>
      n === 1 ? json(202, item('processing')) : json(200, item(n < 3 ? 'processing' : 'ready')),
    );
    const ready = await client(s.fetch).media.uploadFromUrl({ url: 'https://cdn.test/big.mp4' }, { pollIntervalMs: 1 });
    expect(ready).toEqual(item('ready'));
    expect(s.calls.map((c) => `${c.method} ${new URL(c.url).pathname}`)).toEqual([
      'POST /api/media/upload/url',
      `GET /api/media/${ID}`,
      `GET /api/media/${ID}`,
    ]);
  });

  it("throws the item's error when it ends failed", async () => {
    const failed = item('failed', { error: { code: 'UNSUPPORTED_MEDIA_TYPE', message: 'not a png' } });
    const s = stubFetch((_req, n) => (n === 1 ? json(202, item('processing')) : json(200, failed)));
    const err = await client(s.fetch)
      .media.uploadFromUrl({ url: 'https://cdn.test/liar.png' }, { pollIntervalMs: 1 })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SocialPublishingError);
    expect(err).toMatchObject({ code: 'UNSUPPORTED_MEDIA_TYPE', message: 'not a png' });
  });

  it('returns the processing item without waiting when asked, and gives up waiting after waitTimeoutMs', async () => {
    const s = stubFetch((_req, n) => json(n === 1 ? 202 : 200, item('processing')));
    const sp = client(s.fetch);
    await expect(sp.media.uploadFromUrl({ url: 'https://cdn.test/x' }, { waitUntilReady: false })).resolves.toEqual(
      item('processing'),
    );
    expect(s.calls).toHaveLength(1);
    const err = await sp.media
      .uploadFromUrl({ url: 'https://cdn.test/x' }, { pollIntervalMs: 5, waitTimeoutMs: 30 })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'TIMEOUT' });
  });
});

describe('webhook delivery log', () => {
  const HOOK = '22222222-2222-4222-8222-222222222222';
  const ATTEMPT = '33333333-3333-4333-8333-333333333333';
  const DELIVERY = '44444444-4444-4444-8444-444444444444';

  it('lists attempts with attemptId and deliveryId, and redelivers by deliveryId', async () => {
    const attempt = { attemptId: ATTEMPT, deliveryId: DELIVERY, id: ATTEMPT, attempt: 1, succeeded: false };
    const s = stubFetch((req) =>
      req.method === 'GET'
        ? json(200, { data: [attempt], nextCursor: null })
        : json(202, { deliveryId: DELIVERY, eventId: 'e', eventType: 'webhook.test', attempt: 2 }),
    );
    const sp = client(s.fetch);
    const [first] = (await sp.webhooks.deliveries(HOOK)).data;
    expect(first).toMatchObject({ attemptId: ATTEMPT, deliveryId: DELIVERY });
    await expect(sp.webhooks.redeliver(HOOK, first.deliveryId)).resolves.toMatchObject({ attempt: 2 });
    expect(s.calls[1].method).toBe('POST');
    expect(s.calls[1].url).toBe(`http://api.test/api/webhooks/${HOOK}/deliveries/${DELIVERY}/redeliver`);
    const seen = [];
    for await (const a of sp.webhooks.iterateDeliveries(HOOK)) seen.push(a.attemptId);
    expect(seen).toEqual([ATTEMPT]);
  });
});

describe('posts: network options', () => {
  it('types a target’s options per network, from the schemas the networks publish', async () => {
    const options: ProviderOptions['sandbox'] = { visibility: 'unlisted', contentWarning: 'Spoilers' };
    // @ts-expect-error: not one of the sandbox's visibilities
    const wrong: ProviderOptions['sandbox'] = { visibility: 'friends' };
    expect(wrong).toBeDefined();
    const { fetch, calls } = stubFetch(() => json(201, POST));
    const channelId = '22222222-2222-4222-8222-222222222222';
    await client(fetch).posts.create({ content: 'x', channelIds: [channelId], targets: [{ channelId, options }] });
    expect(await calls[0].json()).toEqual({ content: 'x', channelIds: [channelId], targets: [{ channelId, options }] });
  });
});
