import { ApiKeysService } from '../../src/auth/api-keys.service';
import { OrganizationsService } from '../../src/auth/organizations.service';
import { TestApp } from '../support/test-app';

/**
 * Platform mode (docs/adr/0052): an organization's key manages its workspaces, acts in each with
 * X-Workspace-Id, with a rate-limit bucket and Idempotency-Keys per workspace, and sees nothing of
 * another organization's.
 */
describe('organizations and their workspaces', () => {
  let t: TestApp;
  let a: { organizationId: string; workspaceId: string; key: string };
  let b: { organizationId: string; workspaceId: string; key: string };
  let one: string;
  let two: string;

  const as = (key: string, workspaceId?: string) => ({
    key,
    ...(workspaceId ? { headers: { 'x-workspace-id': workspaceId } } : {}),
  });

  beforeAll(async () => {
    t = await TestApp.start();
    const organizations = t.app.get(OrganizationsService);
    a = await organizations.create('Platform A');
    b = await organizations.create('Platform B');
  });
  afterAll(() => t.close());

  it('creates workspaces with name, externalId and metadata; refuses a taken externalId or name (409)', async () => {
    const created = await t.request('POST', '/api/workspaces', {
      key: a.key,
      body: { name: 'Acme Bakery', externalId: 'cust-1', metadata: { plan: 'pro' } },
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(String),
      name: 'Acme Bakery',
      externalId: 'cust-1',
      metadata: { plan: 'pro' },
      approvalRequired: false,
      createdAt: expect.any(String),
    });
    one = created.body.id;
    const second = await t.request('POST', '/api/workspaces', { key: a.key, body: { name: 'Bolt Bikes' } });
    expect(second.status).toBe(201);
    expect(second.body).toMatchObject({ externalId: null, metadata: {} });
    two = second.body.id;

    const sameExternal = await t.request('POST', '/api/workspaces', {
      key: a.key,
      body: { name: 'Other', externalId: 'cust-1' },
    });
    expect(sameExternal.status).toBe(409);
    expect(sameExternal.body).toEqual({ error: 'CONFLICT', message: expect.stringContaining('externalId') });
    const sameName = await t.request('POST', '/api/workspaces', { key: a.key, body: { name: 'Bolt Bikes' } });
    expect(sameName.status).toBe(409);
    // Another organization may use the same externalId and name: uniqueness is per organization.
    const elsewhere = await t.request('POST', '/api/workspaces', {
      key: b.key,
      body: { name: 'Acme Bakery', externalId: 'cust-1' },
    });
    expect(elsewhere.status).toBe(201);
  });

  it('refuses metadata that is not a small map of strings', async () => {
    const tooMany = Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, 'v']));
    for (const metadata of [{ n: 1 }, tooMany, { k: 'x'.repeat(501) }, { ['k'.repeat(41)]: 'v' }, ['a']]) {
      const res = await t.request('POST', '/api/workspaces', { key: a.key, body: { name: 'Meta', metadata } });
      expect(res.status).toBe(400);
      expect(res.body.details).toEqual([expect.objectContaining({ field: 'metadata' })]);
    }
  });

  it('lists, filters by externalId, reads and changes the organization’s workspaces only', async () => {
    const list = await t.request('GET', '/api/workspaces?limit=2', as(a.key));
    expect(list.status).toBe(200);
    expect(list.body.data.map((w: { id: string }) => w.id)).toEqual([a.workspaceId, one]);
    const next = await t.request('GET', `/api/workspaces?limit=2&cursor=${list.body.nextCursor}`, as(a.key));
    expect(next.body.data.map((w: { id: string }) => w.id)).toEqual([two]);
    expect(next.body.nextCursor).toBeNull();
    const filtered = await t.request('GET', '/api/workspaces?externalId=cust-1', as(a.key));
    expect(filtered.body.data.map((w: { id: string }) => w.id)).toEqual([one]);

    expect((await t.request('GET', `/api/workspaces/${one}`, as(a.key))).body.name).toBe('Acme Bakery');
    const changed = await t.request('PATCH', `/api/workspaces/${one}`, {
      key: a.key,
      body: { name: 'Acme Bakery Ltd', metadata: { plan: 'team' } },
    });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ name: 'Acme Bakery Ltd', externalId: 'cust-1', metadata: { plan: 'team' } });
    const cleared = await t.request('PATCH', `/api/workspaces/${two}`, { key: a.key, body: { externalId: null } });
    expect(cleared.body.externalId).toBeNull();
    const taken = await t.request('PATCH', `/api/workspaces/${two}`, { key: a.key, body: { externalId: 'cust-1' } });
    expect(taken.status).toBe(409);

    // Organization B sees none of A's workspaces.
    for (const [method, path] of [
      ['GET', `/api/workspaces/${one}`],
      ['PATCH', `/api/workspaces/${one}`],
      ['GET', `/api/workspaces/${one}/usage`],
      ['DELETE', `/api/workspaces/${one}`],
    ]) {
      const res = await t.request(method, path, { key: b.key, ...(method === 'PATCH' ? { body: { name: 'x' } } : {}) });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: 'NOT_FOUND', message: 'Workspace not found' });
    }
    const bList = await t.request('GET', '/api/workspaces', as(b.key));
    expect(bList.body.data.map((w: { id: string }) => w.id)).not.toContain(one);
  });

  it('acts in a workspace with X-Workspace-Id: GET /workspace answers it, data stays in it', async () => {
    const ws = await t.request('GET', '/api/workspace', as(a.key, one));
    expect(ws.status).toBe(200);
    expect(ws.body).toMatchObject({ id: one, name: 'Acme Bakery Ltd' });
    expect((await t.request('GET', '/api/workspace', as(a.key))).body.id).toBe(a.workspaceId);

    const channel = await t.request('POST', '/api/channels', {
      ...as(a.key, one),
      body: { provider: 'sandbox', credentials: { name: 'Acme' } },
    });
    expect(channel.status).toBe(201);
    const inOne = await t.request('GET', '/api/channels', as(a.key, one));
    const inTwo = await t.request('GET', '/api/channels', as(a.key, two));
    const home = await t.request('GET', '/api/channels', as(a.key));
    expect(inOne.body.data.map((c: { id: string }) => c.id)).toEqual([channel.body.id]);
    expect(inTwo.body.data).toEqual([]);
    expect(home.body.data).toEqual([]);

    // Another organization's workspace, an unknown one, or not a uuid: 404.
    for (const id of [b.workspaceId, '00000000-0000-4000-8000-00000000abcd', 'nope']) {
      const res = await t.request('GET', '/api/channels', as(a.key, id));
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: 'NOT_FOUND', message: 'Workspace not found' });
    }
    expect((await t.request('GET', '/api/channels', as(b.key, one))).status).toBe(404);
  });

  it('answers 403 naming workspaces:manage to a key without it, on /workspaces and with the header', async () => {
    const keys = t.app.get(ApiKeysService);
    const { key } = await keys.create(a.workspaceId, { name: 'reader', scopes: ['posts:read', 'channels:read'] });
    for (const res of [
      await t.request('GET', '/api/workspaces', { key }),
      await t.request('POST', '/api/workspaces', { key, body: { name: 'x' } }),
      await t.request('GET', '/api/channels', as(key, one)),
      await t.request('GET', '/api/channels', as(key, a.workspaceId)),
    ]) {
      expect(res.status).toBe(403);
      expect(res.body.error).toBe('FORBIDDEN');
      expect(res.body.message).toContain('workspaces:manage');
    }
  });

  it('keeps Idempotency-Keys per acting workspace', async () => {
    const body = { name: 'customer key', scopes: ['posts:read'] };
    const post = (workspaceId: string) =>
      t.request('POST', '/api/api-keys', {
        key: a.key,
        headers: { 'x-workspace-id': workspaceId, 'idempotency-key': 'same-key' },
        body,
      });
    const first = await post(one);
    const second = await post(two);
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.body.id).not.toBe(first.body.id);
    const replay = await post(one);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body.id).toBe(first.body.id);
    // Each key was made in the workspace the request acted in.
    expect((await t.request('GET', '/api/workspace', { key: first.body.key })).body.id).toBe(one);
    expect((await t.request('GET', '/api/workspace', { key: second.body.key })).body.id).toBe(two);
  });

  it('keeps a rate-limit bucket per acting workspace: one exhausted, another still answers', async () => {
    const keys = t.app.get(ApiKeysService);
    const { key } = await keys.create(a.workspaceId, {
      name: 'small',
      rateLimitPerMinute: 60,
      rateLimitBurst: 3,
    });
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await t.request('GET', '/api/channels', as(key, one))).status);
    expect(statuses.slice(0, 3)).toEqual([200, 200, 200]);
    expect(statuses.at(-1)).toBe(429);
    const other = await t.request('GET', '/api/channels', as(key, two));
    expect(other.status).toBe(200);
    expect(other.headers.get('x-ratelimit-remaining')).toBe('2');
  });
});
