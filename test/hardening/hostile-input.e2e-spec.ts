import { TestApp } from '../support/test-app';
import { WebhookReceiver } from '../support/webhook-receiver';
import { waitFor } from '../support/publishing-env';

/** Input a careless client or an attacker sends: always a 4xx in the error shape, never a 5xx. */
describe('hostile input', () => {
  let t: TestApp;
  let key: string;
  let workspaceId: string;
  let channelId: string;

  beforeAll(async () => {
    t = await TestApp.start();
    ({ key, workspaceId } = await t.createWorkspace());
    const [row] = await t.dataSource.query(
      `INSERT INTO channels (workspace_id, provider, external_id, name, handle, status, limits, connected_at)
       VALUES ($1, 'mastodon', 'hostile@x', 'h', 'h', 'active', $2, now()) RETURNING id`,
      [workspaceId, JSON.stringify({ maxCharacters: 500, maxMedia: 4, maxImageBytes: 1e6, supportedMimeTypes: [] })],
    );
    channelId = row.id;
  });
  afterAll(() => t.close());

  const expectErrorShape = (res: { status: number; body: any; text: string }, status: number, error: string) => {
    expect({ status: res.status, error: res.body?.error }).toEqual({ status, error });
    expect(typeof res.body.message).toBe('string');
    expect(Object.keys(res.body).filter((k) => !['error', 'message', 'details'].includes(k))).toEqual([]);
  };

  const raw = (method: string, path: string, body: string) =>
    t.request(method, path, { key, rawBody: body, headers: { 'content-type': 'application/json' } });

  describe('NUL characters', () => {
    it('are refused with 400 in strings and keys of every JSON body', async () => {
      const [{ id: postId }] = await t.dataSource.query(
        `INSERT INTO posts (workspace_id, content, status, timeline_at) VALUES ($1, 'x', 'draft', now()) RETURNING id`,
        [workspaceId],
      );
      const cases: Array<[string, string, unknown]> = [
        ['POST', '/api/api-keys', { name: 'bad\u0000name' }],
        ['POST', '/api/posts', { content: 'hello\u0000', channelIds: [channelId] }],
        ['POST', '/api/posts', { content: 'ok', channelIds: [channelId], metadata: { 'k\u0000': 'v' } }],
        ['POST', '/api/posts', { content: 'ok', channelIds: [channelId], metadata: { k: 'v\u0000' } }],
        ['POST', '/api/webhooks', { url: 'https://example.com/\u0000' }],
        ['POST', '/api/webhooks', { url: 'https://example.com/a', description: 'd\u0000' }],
        ['PUT', `/api/posts/${postId}`, { content: 'x\u0000', channelIds: [channelId] }],
        ['POST', '/api/posts/validate', { content: '\u0000', channelIds: [channelId] }],
      ];
      for (const [method, path, body] of cases) {
        const res = await t.request(method, path, { key, body });
        expectErrorShape(res, 400, 'VALIDATION_ERROR');
        expect(res.body.message).toMatch(/NUL/);
      }
      const [{ n }] = await t.dataSource.query('SELECT count(*)::int AS n FROM posts WHERE workspace_id = $1', [
        workspaceId,
      ]);
      expect(n).toBe(1);
    });

    it('are refused with 400 in query strings', async () => {
      const res = await t.request('GET', '/api/posts?status=draft%00', { key });
      expectErrorShape(res, 400, 'VALIDATION_ERROR');
      const cursor = await t.request('GET', '/api/events?cursor=%00abc', { key });
      expectErrorShape(cursor, 400, 'VALIDATION_ERROR');
    });
  });

  describe('deeply nested JSON', () => {
    for (const [name, open, close] of [
      ['arrays', '[', ']'],
      ['objects', '{"a":', '}'],
    ] as const) {
      it(`of ${name} is refused with 400 on every JSON route`, async () => {
        const body = `${open.repeat(5000)}1${close.repeat(5000)}`;
        for (const [method, path] of [
          ['POST', '/api/posts'],
          ['POST', '/api/api-keys'],
          ['POST', '/api/webhooks'],
          ['POST', '/api/media/upload/initialize'],
          ['POST', '/api/channels'],
        ]) {
          const res = await raw(method, path, body);
          expectErrorShape(res, 400, 'VALIDATION_ERROR');
        }
      });
    }

    it('with a prototype-poisoning key deep inside is refused with 400', async () => {
      const body = `${'{"a":'.repeat(3000)}{"__proto__":{"x":1}}${'}'.repeat(3000)}`;
      expectErrorShape(await raw('POST', '/api/posts', body), 400, 'VALIDATION_ERROR');
      const shallow = await raw('POST', '/api/api-keys', '{"name":"x","__proto__":{"admin":true}}');
      expectErrorShape(shallow, 400, 'VALIDATION_ERROR');
    });

    it('at a sane depth still works', async () => {
      const res = await t.request('POST', '/api/api-keys', { key, body: { name: 'nested ok' } });
      expect(res.status).toBe(201);
    });
  });

  describe("Fastify's own errors", () => {
    it('answer broken percent-encoding in a path with 400 in the error shape', async () => {
      for (const path of [
        '/api/posts/%E0%A4%A',
        '/api/media/%',
        '/api/channels/%zz',
        '/api/webhooks/%E0%A4%A/deliveries',
      ]) {
        const res = await t.request('GET', path, { key });
        expectErrorShape(res, 400, 'VALIDATION_ERROR');
      }
    });

    it('answer an overlong path parameter with 414 in the error shape', async () => {
      for (const path of ['/api/posts/', '/api/channels/', '/api/media/']) {
        const res = await t.request('GET', `${path}${'a'.repeat(5000)}`, { key });
        expectErrorShape(res, 414, 'VALIDATION_ERROR');
        expect(res.headers.get('x-request-id')).toBeTruthy();
      }
    });
  });

  describe('URLs that WHATWG URL refuses', () => {
    it('are 400 on POST and PUT /webhooks, with private targets refused as in production', async () => {
      const strict = await TestApp.start({ env: { OUTBOUND_ALLOW_PRIVATE: 'false' } });
      try {
        const { key: k } = await strict.createWorkspace();
        for (const url of ['https://[fe80::1%25eth0]/x', 'https://[fe80::1%eth0]/x', 'http://exa mple.com/']) {
          const res = await strict.request('POST', '/api/webhooks', { key: k, body: { url } });
          expectErrorShape(res, 400, 'VALIDATION_ERROR');
        }
        const created = await strict.request('POST', '/api/webhooks', {
          key: k,
          body: { url: 'https://8.8.8.8/hook' },
        });
        expect(created.status).toBe(201);
        const put = await strict.request('PUT', `/api/webhooks/${created.body.id}`, {
          key: k,
          body: { url: 'https://[fe80::1%25eth0]/x' },
        });
        expectErrorShape(put, 400, 'VALIDATION_ERROR');
      } finally {
        await strict.close();
      }
    });
  });

  describe('a test event to an endpoint disabled by 410 Gone', () => {
    it('is refused with 409, and sent again once the endpoint is re-enabled', async () => {
      const receiver = new WebhookReceiver();
      await receiver.start();
      try {
        receiver.setReply('/gone', { status: 410 });
        const hook = await t.request('POST', '/api/webhooks', { key, body: { url: receiver.url('/gone') } });
        expect(hook.status).toBe(201);
        const first = await t.request('POST', `/api/webhooks/${hook.body.id}/test`, { key });
        expect(first.status).toBe(202);
        await waitFor(
          () => t.request('GET', `/api/webhooks/${hook.body.id}`, { key }).then((r) => r.body),
          (w) => w.enabled === false && w.disabledReason === 'gone',
        );
        const refused = await t.request('POST', `/api/webhooks/${hook.body.id}/test`, { key });
        expectErrorShape(refused, 409, 'CONFLICT');
        expect(refused.body.message).toMatch(/410/);

        const enabled = await t.request('PUT', `/api/webhooks/${hook.body.id}`, {
          key,
          body: { url: receiver.url('/gone'), enabled: true },
        });
        expect(enabled.status).toBe(200);
        receiver.setReply('/gone', undefined);
        expect((await t.request('POST', `/api/webhooks/${hook.body.id}/test`, { key })).status).toBe(202);
      } finally {
        await receiver.stop();
      }
    });
  });
});
