import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MastodonFake } from '../fakes/mastodon.fake';
import { PrivateRedis } from '../support/private-redis';
import { FAST_PUBLISHING_ENV, waitFor } from '../support/publishing-env';
import { TestApp } from '../support/test-app';
import { WebhookReceiver } from '../support/webhook-receiver';

const TOKEN = 'metrics-token-0123456789';

/** The value of one sample line, e.g. `http_requests_total{method="GET",...}`; 0 when absent. */
function sample(text: string, name: string, labels: Record<string, string>): number {
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    const inner = line.slice(name.length + 1, line.indexOf('}'));
    const parts = inner.split(',');
    if (wanted.every((w) => parts.includes(w))) return Number(line.slice(line.indexOf('}') + 1).trim());
  }
  return 0;
}

describe('probes and metrics', () => {
  let t: TestApp;
  let mastodon: MastodonFake;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    mastodon = new MastodonFake({ tokens: ['tok'] });
    receiver = new WebhookReceiver();
    await Promise.all([mastodon.start(), receiver.start()]);
    t = await TestApp.start({ env: { ...FAST_PUBLISHING_ENV, METRICS_TOKEN: TOKEN } });
  });
  afterAll(async () => {
    await t?.close();
    await Promise.all([mastodon?.stop(), receiver?.stop()]);
  });

  const scrape = async () => {
    const res = await t.request('GET', '/api/metrics', { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/plain');
    return res.text;
  };

  it('answers live and ready without a key, keeping /api/health as it was', async () => {
    expect(await t.request('GET', '/api/health/live')).toMatchObject({ status: 200, body: { status: 'ok' } });
    expect(await t.request('GET', '/api/health/ready')).toMatchObject({
      status: 200,
      body: { status: 'ok', checks: { database: 'up', redis: 'up', storage: 'up' } },
    });
    expect((await t.request('GET', '/api/health')).body).toEqual({
      status: 'ok',
      checks: { database: 'up', redis: 'up', video: 'up' },
    });
  });

  it('refuses a scrape without the bearer token, with the error shape', async () => {
    expect(await t.request('GET', '/api/metrics')).toMatchObject({ status: 401, body: { error: 'UNAUTHORIZED' } });
    const wrong = await t.request('GET', '/api/metrics', { headers: { authorization: 'Bearer nope' } });
    expect(wrong.status).toBe(401);
  });

  it('counts requests by route pattern and status, and rate-limit denials', async () => {
    const { key } = await t.createWorkspace(undefined, { perMinute: 1, burst: 1 });
    const before = await scrape();
    const route = { method: 'GET', route: '/api/channels/:id', status: '404' };
    expect((await t.request('GET', '/api/channels/00000000-0000-4000-8000-000000000000', { key })).status).toBe(404);
    expect((await t.request('GET', '/api/channels/00000000-0000-4000-8000-000000000001', { key })).status).toBe(429);
    const after = await scrape();
    expect(sample(after, 'http_requests_total', route) - sample(before, 'http_requests_total', route)).toBe(1);
    expect(sample(after, 'http_request_duration_seconds_count', route)).toBeGreaterThanOrEqual(1);
    const denials = { method: 'GET', route: '/api/channels/:id' };
    expect(
      sample(after, 'rate_limit_denials_total', denials) - sample(before, 'rate_limit_denials_total', denials),
    ).toBe(1);
    expect(after).not.toContain('00000000-0000-4000-8000'); // ids never become labels
  });

  it('reports queue depths, publish outcomes by provider and webhook delivery outcomes', async () => {
    const { key } = await t.createWorkspace();
    expect((await t.request('POST', '/api/webhooks', { key, body: { url: receiver.url('/m') } })).status).toBe(201);
    const channel = await t.connectChannel(key, 'mastodon', { instanceUrl: mastodon.baseUrl, accessToken: 'tok' });
    const created = await t.request('POST', '/api/posts', {
      key,
      body: { content: 'counted', channelIds: [channel], publishNow: true },
    });
    await waitFor(
      async () => (await t.request('GET', `/api/posts/${created.body.id}`, { key })).body.status,
      (s) => s === 'published',
    );
    await receiver.waitForCount('/m', 1, 15_000);
    const text = await waitFor(scrape, (m) => sample(m, 'webhook_deliveries_total', { outcome: 'delivered' }) >= 1);
    expect(sample(text, 'publish_outcomes_total', { provider: 'mastodon', outcome: 'published' })).toBe(1);
    for (const queue of ['publish', 'webhooks', 'analytics']) {
      expect(text).toMatch(new RegExp(`queue_jobs\\{queue="${queue}",state="waiting"\\} \\d+`));
    }
  });
});

describe('metrics without METRICS_TOKEN', () => {
  it('are not served (404)', async () => {
    const t = await TestApp.start({ env: { METRICS_TOKEN: '' } });
    try {
      expect(await t.request('GET', '/api/metrics')).toMatchObject({ status: 404, body: { error: 'NOT_FOUND' } });
    } finally {
      await t.close();
    }
  });
});

describe('readiness when a dependency is down', () => {
  it('answers 503 naming Redis while it is down, and 200 again once it is back', async () => {
    const redis = new PrivateRedis();
    await redis.start();
    const t = await TestApp.start({ env: { REDIS_URL: redis.url, REDIS_PREFIX: 'ready' } });
    let down = false;
    try {
      expect((await t.request('GET', '/api/health/ready')).status).toBe(200);
      await redis.stop();
      down = true;
      const res = await t.request('GET', '/api/health/ready');
      expect(res).toMatchObject({ status: 503, body: { status: 'error', checks: { redis: 'down', database: 'up' } } });
      expect((await t.request('GET', '/api/health/live')).status).toBe(200);
      await redis.start();
      down = false;
      await waitFor(
        async () => (await t.request('GET', '/api/health/ready')).status,
        (s) => s === 200,
      );
    } finally {
      if (down) await redis.start();
      await t.close();
      await redis.destroy();
    }
  }, 120_000);

  it('answers 503 naming storage when the media directory cannot be used', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sps-ready-'));
    const file = join(dir, 'not-a-directory');
    writeFileSync(file, 'x');
    const t = await TestApp.start({ env: { MEDIA_DIR: join(file, 'media') } });
    try {
      expect(await t.request('GET', '/api/health/ready')).toMatchObject({
        status: 503,
        body: { checks: { storage: 'down', database: 'up', redis: 'up' } },
      });
    } finally {
      await t.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
