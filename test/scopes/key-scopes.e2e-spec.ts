import { randomUUID } from 'node:crypto';
import { SCOPES } from '../../src/auth/scopes.format';
import { TestApp } from '../support/test-app';

type Operation = { method: string; path: string; scope: string | undefined; secured: boolean; id: string };

/** Key scopes (docs/guide.md, "Key scopes and approval"): every route's declared scope is enforced. */
describe('key scopes', () => {
  let t: TestApp;
  let ws: { key: string; workspaceId: string; apiKeyId: string };
  let operations: Operation[];

  const createKey = async (scopes: string[] | undefined, key = ws.key) =>
    t.request('POST', '/api/api-keys', { key, body: { name: `k-${scopes?.length ?? 'all'}`, scopes } });

  beforeAll(async () => {
    t = await TestApp.start();
    ws = await t.createWorkspace();
    const doc = (await t.request('GET', '/api/openapi.json')).body;
    operations = Object.entries<Record<string, any>>(doc.paths).flatMap(([path, item]) =>
      ['get', 'put', 'post', 'patch', 'delete']
        .filter((m) => item[m])
        .map((m) => ({
          method: m.toUpperCase(),
          path,
          id: item[m].operationId as string,
          scope: item[m]['x-required-scope'] as string | undefined,
          secured: !(Array.isArray(item[m].security) && item[m].security.length === 0),
        })),
    );
  });
  afterAll(() => t?.close());

  const concrete = (path: string) => `/api${path.replace(/\{[^}]+\}/g, () => randomUUID())}`;

  it('names a scope on every operation that takes an API key, with a line in its description and a 403', async () => {
    const doc = (await t.request('GET', '/api/openapi.json')).body;
    const secured = operations.filter((o) => o.secured);
    expect(secured.length).toBeGreaterThan(40);
    for (const o of secured) {
      expect({ op: o.id, scope: o.scope && SCOPES.includes(o.scope as never) }).toEqual({ op: o.id, scope: true });
      const op = doc.paths[o.path][o.method.toLowerCase()];
      expect(op.description).toContain(`Required scope: \`${o.scope}\``);
      expect(op.responses['403']).toBeDefined();
    }
    expect(operations.filter((o) => !o.secured).every((o) => o.scope === undefined)).toBe(true);
  });

  it('refuses every operation to a key holding every scope but the one it names (403 naming it), and lets its scope through', async () => {
    const allBut = new Map<string, string>();
    const only = new Map<string, string>();
    for (const scope of SCOPES) {
      const others = await createKey(SCOPES.filter((s) => s !== scope));
      expect(others.status).toBe(201);
      allBut.set(scope, others.body.key);
      only.set(scope, (await createKey([scope])).body.key);
    }
    const refused: string[] = [];
    const passed: string[] = [];
    for (const o of operations.filter((op) => op.secured)) {
      const path = concrete(o.path);
      const denied = await t.request(o.method, path, { key: allBut.get(o.scope!) });
      if (
        denied.status === 403 &&
        denied.body.error === 'FORBIDDEN' &&
        denied.body.message.includes(`lacks the scope ${o.scope}`)
      ) {
        refused.push(o.id);
      }
      const allowed = await t.request(o.method, path, { key: only.get(o.scope!) });
      if (allowed.status !== 403 && allowed.status !== 401) passed.push(o.id);
    }
    const ids = operations.filter((op) => op.secured).map((op) => op.id);
    expect(refused).toEqual(ids);
    expect(passed).toEqual(ids);
  });

  it('lists scopes on keys, ["*"] by default, and normalises what it is given', async () => {
    const all = await createKey(undefined);
    expect(all.body.scopes).toEqual(['*']);
    const some = await createKey(['posts:write', 'posts:read', 'posts:read']);
    expect(some.status).toBe(201);
    expect(some.body.scopes).toEqual(['posts:read', 'posts:write']);
    const listed = await t.request('GET', '/api/api-keys?limit=100', { key: ws.key });
    expect(listed.body.data.find((k: { id: string }) => k.id === some.body.id).scopes).toEqual([
      'posts:read',
      'posts:write',
    ]);
    expect(listed.body.data.find((k: { id: string }) => k.id === ws.apiKeyId).scopes).toEqual(['*']);
  });

  it('refuses unknown and empty scope lists (400 naming scopes)', async () => {
    for (const scopes of [['posts:delete'], [], 'posts:read']) {
      const res = await t.request('POST', '/api/api-keys', { key: ws.key, body: { name: 'bad', scopes } });
      expect(res.status).toBe(400);
      expect(res.body.details.map((d: { field: string }) => d.field)).toContain('scopes');
    }
  });

  it('never lets a key create a key with a scope it does not hold', async () => {
    const manager = (await createKey(['keys:manage', 'posts:read'])).body.key;
    const escalate = await createKey(['keys:manage', 'posts:publish'], manager);
    expect(escalate.status).toBe(403);
    expect(escalate.body).toEqual({
      error: 'FORBIDDEN',
      message: 'A key cannot create a key with scopes it does not hold: posts:publish',
    });
    const everything = await createKey(undefined, manager);
    expect(everything.status).toBe(403);
    expect(everything.body.message).toContain(': *');
    const narrower = await createKey(['posts:read'], manager);
    expect(narrower.status).toBe(201);
    expect(narrower.body.scopes).toEqual(['posts:read']);
    const same = await createKey(['posts:read', 'keys:manage'], manager);
    expect(same.status).toBe(201);
  });

  it('answers 403 naming the missing scope, and nothing changed', async () => {
    const reader = (await createKey(['posts:read'])).body.key;
    const res = await t.request('POST', '/api/webhooks', {
      key: reader,
      body: { url: 'https://example.com/hook' },
    });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({
      error: 'FORBIDDEN',
      message: expect.stringMatching(/^This API key lacks the scope webhooks:manage \(/),
    });
    expect((await t.request('GET', '/api/webhooks', { key: ws.key })).body.data).toEqual([]);
  });
});
