import { TestApp } from '../support/test-app';

describe('rate limits per API key', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await TestApp.start({
      env: { RATE_LIMIT_PER_MINUTE: '100', RATE_LIMIT_BURST: '200', AUTH_FAILURES_PER_MINUTE: '60' },
    });
  });
  afterAll(() => t.close());

  const fire = (key: string, n: number) =>
    Promise.all(Array.from({ length: n }, () => t.request('GET', '/api/api-keys?limit=1', { key })));

  it('lets about 200 requests of a fresh key through a burst, then answers 429 with Retry-After', async () => {
    const keys = t.app.get((await import('../../src/auth/api-keys.service')).ApiKeysService);
    const ws = await keys.resolveWorkspace('burst', true);
    const { key } = await keys.create(ws.id, { name: 'default-limits' });

    const first = await t.request('GET', '/api/api-keys?limit=1', { key });
    expect(first.status).toBe(200);
    expect(first.headers.get('x-ratelimit-limit')).toBe('100');
    expect(first.headers.get('x-ratelimit-burst')).toBe('200');
    expect(Number(first.headers.get('x-ratelimit-remaining'))).toBe(199);
    const reset = Number(first.headers.get('x-ratelimit-reset'));
    const nowS = Date.now() / 1000;
    expect(reset).toBeGreaterThan(nowS - 1);
    expect(reset).toBeLessThan(nowS + 5); // one token refills in 0.6 s

    const results = [];
    for (let i = 0; i < 5; i++) results.push(...(await fire(key, 50)));
    const ok = results.filter((r) => r.status === 200).length;
    const limited = results.filter((r) => r.status === 429);
    // 199 tokens left after the first request, plus the trickle refilled during the run
    expect(ok).toBeGreaterThanOrEqual(199);
    expect(ok).toBeLessThan(215);
    expect(limited.length).toBeGreaterThan(0);
    const r = limited[0];
    expect(r.body).toEqual({ error: 'RATE_LIMIT_EXCEEDED', message: expect.any(String) });
    expect(r.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(r.headers.get('x-ratelimit-limit')).toBe('100');
    expect(r.headers.get('x-ratelimit-reset')).toMatch(/^\d+$/);

    // A second key of the same workspace has a bucket of its own
    const { key: other } = await keys.create(ws.id, { name: 'second' });
    const res = await t.request('GET', '/api/api-keys?limit=1', { key: other });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-ratelimit-remaining')).toBe('199');
  });

  it('honours per-key overrides', async () => {
    const { key } = await t.createWorkspace('small', { perMinute: 60, burst: 3 });
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await t.request('GET', '/api/api-keys?limit=1', { key })).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
  });

  it('does not count public routes', async () => {
    const res = await t.request('GET', '/api/health');
    expect(res.headers.get('x-ratelimit-limit')).toBeNull();
  });

  it('answers 429 after more than 60 failed authentications from one address in a minute', async () => {
    const results = [];
    for (let i = 0; i < 62; i++)
      results.push((await t.request('GET', '/api/api-keys', { key: `spk_wrong${i}` })).status);
    expect(results.slice(0, 60).every((s) => s === 401)).toBe(true);
    expect(results[61]).toBe(429);
  });
});
