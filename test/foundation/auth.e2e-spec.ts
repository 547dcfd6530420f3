import { createHash } from 'node:crypto';
import { generateApiKey, revokedKeyMarker } from '../../src/auth/api-key.format';
import { RedisClients } from '../../src/redis/redis.module';
import { TestApp } from '../support/test-app';

describe('API keys and authentication', () => {
  let t: TestApp;
  let a: { workspaceId: string; key: string; apiKeyId: string };
  let b: { workspaceId: string; key: string; apiKeyId: string };

  beforeAll(async () => {
    t = await TestApp.start();
    a = await t.createWorkspace('alpha');
    b = await t.createWorkspace('beta');
  });
  afterAll(() => t.close());

  it('answers 401 with exactly "API key required" when the header is missing, the hint in WWW-Authenticate', async () => {
    const res = await t.request('GET', '/api/api-keys');
    expect(res.status).toBe(401);
    expect(res.text).toBe('{"error":"UNAUTHORIZED","message":"API key required"}');
    // Both ways to send a key are named in the challenge (RFC 9110 section 11.6.1), not in the message.
    expect(res.headers.get('www-authenticate')).toBe('ApiKey realm="api", header="X-API-Key", Bearer realm="api"');
  });

  it('answers 401 "API key required" when the header is empty', async () => {
    const res = await t.request('GET', '/api/api-keys', { headers: { 'x-api-key': '' } });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({
      error: 'UNAUTHORIZED',
      message: 'API key required',
    });
  });

  it('answers 401 "Invalid API key" for malformed, unknown and never-issued well-formed keys', async () => {
    for (const key of ['nonsense', 'spk_' + 'a'.repeat(36), generateApiKey()]) {
      const res = await t.request('GET', '/api/api-keys', { key });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ error: 'UNAUTHORIZED', message: 'Invalid API key' });
      expect(res.headers.get('www-authenticate')).toContain('X-API-Key');
    }
  });

  it('creates a key once, lists keys without secrets, and refuses a revoked key on the next request', async () => {
    const created = await t.request('POST', '/api/api-keys', { key: a.key, body: { name: 'ci' } });
    expect(created.status).toBe(201);
    expect(created.body.key).toMatch(/^spk_live_[0-9A-Za-z]{36}$/);
    expect(created.body.prefix).toBe(created.body.key.slice(0, 17));
    expect(created.body.environment).toBe('production');
    const newKey: string = created.body.key;

    const ok = await t.request('GET', '/api/api-keys', { key: newKey });
    expect(ok.status).toBe(200);
    expect(ok.body.data.map((k: { id: string }) => k.id)).toContain(created.body.id);
    expect(JSON.stringify(ok.body)).not.toContain(newKey);
    expect(ok.body.data.every((k: Record<string, unknown>) => !('key' in k) && !('keyHash' in k))).toBe(true);

    const revoked = await t.request('DELETE', `/api/api-keys/${created.body.id}`, { key: a.key });
    expect(revoked.status).toBe(204);
    const after = await t.request('GET', '/api/api-keys', { key: newKey });
    expect(after.status).toBe(401);
    expect(after.body).toEqual({ error: 'UNAUTHORIZED', message: 'Invalid API key' });

    const listed = await t.request('GET', '/api/api-keys', { key: a.key });
    const entry = listed.body.data.find((k: { id: string }) => k.id === created.body.id);
    expect(entry.revokedAt).not.toBeNull();
  });

  it("refuses a key revoked on another instance before that instance's eviction message arrives here", async () => {
    const created = await t.request('POST', '/api/api-keys', { key: a.key, body: { name: 'elsewhere' } });
    const victim: string = created.body.key;
    expect((await t.request('GET', '/api/api-keys', { key: victim })).status).toBe(200); // cached here now
    // What another instance's revocation leaves in Redis before its pub/sub message is delivered.
    await t.app.get(RedisClients).client.set(revokedKeyMarker(created.body.id), '1', 'PX', 10_000);
    const res = await t.request('GET', '/api/api-keys', { key: victim });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: 'UNAUTHORIZED', message: 'Invalid API key' });
  });

  it('stores only a SHA-256 hash of the key', async () => {
    const rows: Array<{ key_hash: string }> = await t.dataSource.query('SELECT key_hash FROM api_keys');
    expect(rows.some((r) => r.key_hash === createHash('sha256').update(a.key).digest('hex'))).toBe(true);
    const dump = JSON.stringify(await t.dataSource.query('SELECT * FROM api_keys'));
    expect(dump).not.toContain(a.key);
  });

  it('refuses an expired key', async () => {
    const created = await t.request('POST', '/api/api-keys', {
      key: a.key,
      body: { name: 'short-lived', expiresAt: new Date(Date.now() + 1500).toISOString() },
    });
    expect(created.status).toBe(201);
    expect((await t.request('GET', '/api/api-keys', { key: created.body.key })).status).toBe(200);
    await new Promise((r) => setTimeout(r, 1600));
    const res = await t.request('GET', '/api/api-keys', { key: created.body.key });
    expect(res.body).toEqual({ error: 'UNAUTHORIZED', message: 'Invalid API key' });
  });

  it("does not let workspace B see or revoke workspace A's keys (404)", async () => {
    const listB = await t.request('GET', '/api/api-keys', { key: b.key });
    expect(listB.body.data.map((k: { id: string }) => k.id)).not.toContain(a.apiKeyId);
    const del = await t.request('DELETE', `/api/api-keys/${a.apiKeyId}`, { key: b.key });
    expect(del.status).toBe(404);
    expect(del.body).toEqual({ error: 'NOT_FOUND', message: 'API key not found' });
    expect((await t.request('GET', '/api/api-keys', { key: a.key })).status).toBe(200);
  });

  it('validates the create body: unknown fields, missing name, expiry without zone', async () => {
    const unknown = await t.request('POST', '/api/api-keys', { key: a.key, body: { name: 'x', admin: true } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toBe('VALIDATION_ERROR');
    expect(unknown.body.details).toEqual(expect.arrayContaining([expect.objectContaining({ field: 'admin' })]));
    const missing = await t.request('POST', '/api/api-keys', { key: a.key, body: {} });
    expect(missing.status).toBe(400);
    const noZone = await t.request('POST', '/api/api-keys', {
      key: a.key,
      body: { name: 'x', expiresAt: '2030-01-01T00:00:00' },
    });
    expect(noZone.status).toBe(400);
    expect(noZone.body.details[0].field).toBe('expiresAt');
  });

  it('paginates keys with limit and cursor, each key exactly once', async () => {
    for (let i = 0; i < 3; i++) await t.request('POST', '/api/api-keys', { key: b.key, body: { name: `k${i}` } });
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const q: string = cursor ? `?limit=2&cursor=${cursor}` : '?limit=2';
      const page = await t.request('GET', `/api/api-keys${q}`, { key: b.key });
      expect(page.status).toBe(200);
      expect(page.body.data.length).toBeLessThanOrEqual(2);
      seen.push(...page.body.data.map((k: { id: string }) => k.id));
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(seen).toHaveLength(4);
    expect(new Set(seen).size).toBe(4);
    expect((await t.request('GET', '/api/api-keys?cursor=garbage', { key: b.key })).status).toBe(400);
    expect((await t.request('GET', '/api/api-keys?limit=101', { key: b.key })).status).toBe(400);
  });
});
