import { setTimeout as sleep } from 'node:timers/promises';
import { EventsService } from '../../src/events/events.service';
import { syntheticEvent } from '../support/synthetic-event';
import { TestApp } from '../support/test-app';
import { WebhookReceiver } from '../support/webhook-receiver';

const ALL_TYPES = [
  'post.published',
  'post.failed',
  'post.approval_requested',
  'post.approved',
  'post.rejected',
  'post.first_comment_failed',
  'channel.connected',
  'channel.disconnected',
  'analytics.updated',
  'media.ready',
  'media.failed',
  'workspace.deleted',
];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('webhook subscriptions', () => {
  let t: TestApp;
  let a: { key: string; workspaceId: string };
  let b: { key: string; workspaceId: string };

  beforeAll(async () => {
    t = await TestApp.start();
    a = await t.createWorkspace('wh-a');
    b = await t.createWorkspace('wh-b');
  });
  afterAll(async () => {
    await t.close();
  });

  const create = (key: string, body: unknown) => t.request('POST', '/api/webhooks', { key, body });

  it('creates a subscription and shows the whsec_ secret once', async () => {
    const res = await create(a.key, {
      url: 'https://example.com/hooks',
      description: 'crm',
      events: ['post.published'],
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(UUID),
      url: 'https://example.com/hooks',
      events: ['post.published'],
      description: 'crm',
      enabled: true,
      disabledReason: null,
      secretRotatedAt: null,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]+=*$/),
    });
    expect(Buffer.from(res.body.secret.slice(6), 'base64').length).toBeGreaterThanOrEqual(24);

    const got = await t.request('GET', `/api/webhooks/${res.body.id}`, { key: a.key });
    expect(got.status).toBe(200);
    const { secret, ...withoutSecret } = res.body;
    expect(got.body).toEqual(withoutSecret);
    expect(got.text).not.toContain(secret);
  });

  it('stores the secret sealed, bound to its row', async () => {
    const res = await create(a.key, { url: 'https://example.com/sealed' });
    const [row] = await t.dataSource.query('SELECT * FROM webhooks WHERE id = $1', [res.body.id]);
    expect(row.secret).toMatch(/^v1\./);
    expect(JSON.stringify(row)).not.toContain(res.body.secret.slice(6));
  });

  it('subscribes to every event type when events is empty or absent', async () => {
    const absent = await create(a.key, { url: 'https://example.com/all' });
    expect(absent.body.events).toEqual(ALL_TYPES);
    const empty = await create(a.key, { url: 'https://example.com/all2', events: [], enabled: false });
    expect(empty.status).toBe(201);
    expect(empty.body.events).toEqual(ALL_TYPES);
    expect(empty.body.enabled).toBe(false);
    expect(empty.body.description).toBeNull();
  });

  it('refuses invalid bodies with VALIDATION_ERROR details', async () => {
    const unknownType = await create(a.key, {
      url: 'https://example.com/x',
      events: ['post.published', 'post.deleted'],
    });
    expect(unknownType.status).toBe(400);
    expect(unknownType.body.error).toBe('VALIDATION_ERROR');
    expect(unknownType.body.details).toEqual([{ field: 'events', message: expect.stringContaining('post.published') }]);

    const cases: Array<[unknown, string]> = [
      [{}, 'url'],
      [{ url: 'not a url' }, 'url'],
      [{ url: 'ftp://example.com/x' }, 'url'],
      [{ url: 'https://example.com/x', events: 'post.published' }, 'events'],
      [{ url: 'https://example.com/x', enabled: 'yes' }, 'enabled'],
      [{ url: 'https://example.com/x', description: 'x'.repeat(501) }, 'description'],
      [{ url: 'https://example.com/x', secret: 'whsec_mine' }, 'secret'],
    ];
    for (const [body, field] of cases) {
      const res = await create(a.key, body);
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('VALIDATION_ERROR');
      expect(res.body.details.map((d: { field: string }) => d.field)).toContain(field);
    }
    expect((await t.request('GET', '/api/webhooks/not-a-uuid', { key: a.key })).status).toBe(400);
    expect((await t.request('GET', '/api/webhooks?limit=0', { key: a.key })).status).toBe(400);
  });

  it('lists newest first with keyset pagination, never with secrets', async () => {
    const all = await t.request('GET', '/api/webhooks?limit=100', { key: a.key });
    expect(all.status).toBe(200);
    expect(all.body.data.length).toBe(4);
    expect(all.body.nextCursor).toBeNull();
    for (const w of all.body.data) expect(w.secret).toBeUndefined();

    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await t.request('GET', `/api/webhooks?limit=3${cursor ? `&cursor=${cursor}` : ''}`, {
        key: a.key,
      });
      seen.push(...page.body.data.map((w: { id: string }) => w.id));
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(seen).toEqual(all.body.data.map((w: { id: string }) => w.id));
    const created = all.body.data.map((w: { createdAt: string }) => w.createdAt);
    expect([...created].sort().reverse()).toEqual(created);
    expect((await t.request('GET', '/api/webhooks?cursor=garbage', { key: a.key })).status).toBe(400);
  });

  it('replaces a subscription with PUT (omitted fields take their defaults) and keeps the secret', async () => {
    const created = await create(a.key, { url: 'https://example.com/put', events: ['post.failed'], description: 'd' });
    const id = created.body.id;
    const res = await t.request('PUT', `/api/webhooks/${id}`, {
      key: a.key,
      body: { url: 'https://example.com/put2', events: ['analytics.updated', 'analytics.updated'] },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(
      expect.objectContaining({
        id,
        url: 'https://example.com/put2',
        events: ['analytics.updated'],
        description: null,
        enabled: true,
        secretRotatedAt: null,
      }),
    );
    expect(res.body.secret).toBeUndefined();
    expect(Date.parse(res.body.updatedAt)).toBeGreaterThanOrEqual(Date.parse(created.body.updatedAt));
    const bad = await t.request('PUT', `/api/webhooks/${id}`, { key: a.key, body: { events: ['post.failed'] } });
    expect(bad.status).toBe(400);
  });

  it('rotates the secret: a new one, shown once, and secretRotatedAt', async () => {
    const created = await create(a.key, { url: 'https://example.com/rotate' });
    const res = await t.request('POST', `/api/webhooks/${created.body.id}/rotate-secret`, { key: a.key });
    expect(res.status).toBe(200);
    expect(res.body.secret).toMatch(/^whsec_/);
    expect(res.body.secret).not.toBe(created.body.secret);
    expect(res.body.secretRotatedAt).toEqual(expect.any(String));
    const got = await t.request('GET', `/api/webhooks/${created.body.id}`, { key: a.key });
    expect(got.body.secretRotatedAt).toBe(res.body.secretRotatedAt);
    expect(got.body.secret).toBeUndefined();
    const emptyBody = await t.request('POST', `/api/webhooks/${created.body.id}/rotate-secret`, {
      key: a.key,
      body: {},
    });
    expect(emptyBody.status).toBe(200);
    const unknownField = await t.request('POST', `/api/webhooks/${created.body.id}/rotate-secret`, {
      key: a.key,
      body: { secret: 'whsec_mine' },
    });
    expect(unknownField.status).toBe(400);
  });

  it('deletes: 204, then 404', async () => {
    const created = await create(a.key, { url: 'https://example.com/delete' });
    const del = await t.request('DELETE', `/api/webhooks/${created.body.id}`, { key: a.key });
    expect(del.status).toBe(204);
    expect(del.text).toBe('');
    expect((await t.request('GET', `/api/webhooks/${created.body.id}`, { key: a.key })).status).toBe(404);
    expect((await t.request('DELETE', `/api/webhooks/${created.body.id}`, { key: a.key })).status).toBe(404);
  });

  it("gives another workspace 404 on every route of a workspace's webhook", async () => {
    const created = await create(a.key, { url: 'https://example.com/private' });
    const id = created.body.id;
    const routes: Array<[string, string, unknown?]> = [
      ['GET', `/api/webhooks/${id}`],
      ['PUT', `/api/webhooks/${id}`, { url: 'https://example.com/stolen' }],
      ['DELETE', `/api/webhooks/${id}`],
      ['POST', `/api/webhooks/${id}/rotate-secret`],
      ['POST', `/api/webhooks/${id}/test`],
      ['GET', `/api/webhooks/${id}/deliveries`],
    ];
    for (const [method, path, body] of routes) {
      const res = await t.request(method, path, { key: b.key, body });
      expect({ route: `${method} ${path}`, status: res.status, body: res.body }).toEqual({
        route: `${method} ${path}`,
        status: 404,
        body: { error: 'NOT_FOUND', message: 'Webhook not found' },
      });
    }
    expect((await t.request('GET', '/api/webhooks', { key: b.key })).body.data).toEqual([]);
    const still = await t.request('GET', `/api/webhooks/${id}`, { key: a.key });
    expect(still.body.url).toBe('https://example.com/private');
    const deliveries = await t.request('GET', `/api/webhooks/${id}/deliveries`, { key: a.key });
    expect(deliveries.body).toEqual({ data: [], nextCursor: null });
  });

  it('requires an API key', async () => {
    expect((await t.request('GET', '/api/webhooks')).status).toBe(401);
    expect((await create('spk_nope', { url: 'https://example.com/x' })).status).toBe(401);
  });
});

describe('webhook URLs with OUTBOUND_ALLOW_PRIVATE=false', () => {
  let t: TestApp;
  let key: string;
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    receiver = new WebhookReceiver();
    await receiver.start();
    t = await TestApp.start({ env: { OUTBOUND_ALLOW_PRIVATE: 'false', WEBHOOK_SWEEP_INTERVAL_MS: '300' } });
    ({ key } = await t.createWorkspace());
  });
  afterAll(async () => {
    await t.close();
    await receiver.stop();
    process.env.OUTBOUND_ALLOW_PRIVATE = 'true';
  });

  it.each([
    'https://127.0.0.1/hook',
    'https://10.1.2.3/hook',
    'https://169.254.169.254/latest/meta-data',
    'https://[::1]/hook',
    'https://localhost/hook',
    'https://192.168.1.10:8443/hook',
  ])('refuses %s at creation', async (url) => {
    const res = await t.request('POST', '/api/webhooks', { key, body: { url } });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('VALIDATION_ERROR');
    expect(res.body.details).toEqual([
      { field: 'url', message: expect.stringMatching(/non-public|not allowed|resolved/) },
    ]);
  });

  it('requires https', async () => {
    const res = await t.request('POST', '/api/webhooks', { key, body: { url: 'http://93.184.215.14/hook' } });
    expect(res.status).toBe(400);
    expect(res.body.details).toEqual([{ field: 'url', message: 'must use https' }]);
  });

  it('accepts a public https address, and refuses a private one on update too', async () => {
    const ok = await t.request('POST', '/api/webhooks', { key, body: { url: 'https://93.184.215.14/hook' } });
    expect(ok.status).toBe(201);
    const put = await t.request('PUT', `/api/webhooks/${ok.body.id}`, { key, body: { url: 'https://127.0.0.1/x' } });
    expect(put.status).toBe(400);
    expect((await t.request('GET', `/api/webhooks/${ok.body.id}`, { key })).body.url).toBe(
      'https://93.184.215.14/hook',
    );
  });

  it('checks the address again at delivery time: a stored URL that now points inside is refused', async () => {
    const ws = await t.createWorkspace();
    const hook = await t.request('POST', '/api/webhooks', { key: ws.key, body: { url: 'https://93.184.215.14/hook' } });
    expect(hook.status).toBe(201);
    // As if the host had been re-pointed (DNS rebinding) after the creation-time check.
    await t.dataSource.query('UPDATE webhooks SET url = $1 WHERE id = $2', [receiver.url('/inside'), hook.body.id]);
    await t.dataSource.transaction((em) =>
      t.app.get(EventsService).record(em, syntheticEvent('post.published', ws.workspaceId, { id: 'p' })),
    );
    let log: any[] = [];
    const deadline = Date.now() + 10_000;
    while (log.length === 0 && Date.now() < deadline) {
      await sleep(100);
      log = (await t.request('GET', `/api/webhooks/${hook.body.id}/deliveries`, { key: ws.key })).body.data;
    }
    expect(log[0]).toEqual(expect.objectContaining({ attempt: 1, statusCode: null, succeeded: false }));
    expect(log[0].error).toMatch(/^blocked: .*non-public/);
    expect(receiver.received).toHaveLength(0);
  });
});
