import { NestFactory } from '@nestjs/core';
import type { INestApplicationContext } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import { AppModule } from '../../src/app.module';
import { EventType } from '../../src/events/event-payloads';
import { EventsService } from '../../src/events/events.service';
import { MastodonFake } from '../fakes/mastodon.fake';
import { TEST_REDIS_URL } from '../setup/test-env';
import { waitFor } from '../support/publishing-env';
import { syntheticEvent } from '../support/synthetic-event';
import { TestApp } from '../support/test-app';
import { WebhookReceiver } from '../support/webhook-receiver';
import { TcpProxy } from '../support/tcp-proxy';

/**
 * Failure modes of the relay: Redis unreachable (through a TCP proxy this app alone uses, so the
 * shared Redis keeps serving other tests), lost jobs, and several workers relaying at once.
 */
describe('webhook relay under failures', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;
  let mastodon: MastodonFake;
  let proxy: TcpProxy;

  beforeAll(async () => {
    const redis = new URL(TEST_REDIS_URL);
    proxy = new TcpProxy(redis.hostname, Number(redis.port || 6379));
    await proxy.start();
    receiver = new WebhookReceiver();
    mastodon = new MastodonFake({ tokens: [{ token: 'tok-dave', username: 'dave', displayName: 'Dave' }] });
    await Promise.all([receiver.start(), mastodon.start()]);
    t = await TestApp.start({
      env: {
        REDIS_URL: proxy.url,
        WEBHOOK_RETRY_SCHEDULE_MS: '300,300,300',
        WEBHOOK_SWEEP_INTERVAL_MS: '300',
      },
    });
  });
  afterAll(async () => {
    await proxy.restore();
    await t.close();
    await Promise.all([receiver.stop(), mastodon.stop(), proxy.stop()]);
  });

  const subscribe = async (key: string, path: string, extra: Record<string, unknown> = {}) => {
    const res = await t.request('POST', '/api/webhooks', { key, body: { url: receiver.url(path), ...extra } });
    expect(res.status).toBe(201);
    return res.body as { id: string; secret: string };
  };
  const record = (workspaceId: string, type: EventType, data: Record<string, unknown>) =>
    t.dataSource.transaction((em) => t.app.get(EventsService).record(em, syntheticEvent(type, workspaceId, data)));
  const undispatched = async (workspaceId: string): Promise<number> => {
    const [row] = await t.dataSource.query(
      'SELECT count(*)::int AS n FROM events WHERE workspace_id = $1 AND dispatched_at IS NULL',
      [workspaceId],
    );
    return row.n;
  };

  it('keeps events recorded while Redis is unreachable in the outbox and delivers them once it is back', async () => {
    const ws = await t.createWorkspace();
    await subscribe(ws.key, '/outage', { events: ['channel.disconnected', 'post.published'] });
    const channel = await t.request('POST', '/api/channels', {
      key: ws.key,
      body: { provider: 'mastodon', credentials: { instanceUrl: mastodon.baseUrl, accessToken: 'tok-dave' } },
    });
    expect(channel.status).toBe(201);
    // The connection's channel.connected (no subscription here) leaves the outbox before Redis goes.
    await waitFor(
      () => undispatched(ws.workspaceId),
      (n) => n === 0,
      5_000,
    );

    await proxy.cut();
    const deadline = Date.now() + 5_000;
    while ((await t.request('GET', '/api/health')).status !== 503) {
      if (Date.now() > deadline) throw new Error('the app never noticed Redis was gone');
      await sleep(100);
    }
    // The API keeps working (the rate limiter fails open) and events are committed with the state change.
    expect((await t.request('DELETE', `/api/channels/${channel.body.id}`, { key: ws.key })).status).toBe(204);
    const published = await record(ws.workspaceId, 'post.published', { id: 'p-outage' });

    await sleep(1_500); // several sweeps and NOTIFYs: nothing may be marked dispatched without a job
    expect(receiver.at('/outage')).toHaveLength(0);
    expect(await undispatched(ws.workspaceId)).toBe(2);

    await proxy.restore();
    const got = await receiver.waitForCount('/outage', 2, 15_000);
    const types = got.map((r) => JSON.parse(r.body).type).sort();
    expect(types).toEqual(['channel.disconnected', 'post.published']);
    expect(got.map((r) => r.headers['webhook-id'])).toContain(published.id);
    // The relay marks events dispatched in the transaction that enqueued them, which may commit just
    // after a fast delivery arrives.
    await waitFor(
      () => undispatched(ws.workspaceId),
      (n) => n === 0,
      5_000,
    );
    await sleep(700);
    expect(receiver.at('/outage')).toHaveLength(2);
  });

  it('re-enqueues a pending delivery whose job was lost (Redis flushed after the relay ran)', async () => {
    const ws = await t.createWorkspace();
    const hook = await subscribe(ws.key, '/lost-job');
    // An event the relay already dispatched, and its delivery, due 20 s ago, with no job in Redis.
    const [event] = await t.dataSource.query(
      `INSERT INTO events (workspace_id, type, data, dispatched_at) VALUES ($1, 'post.failed', '{"id":"p-lost"}', now())
       RETURNING id`,
      [ws.workspaceId],
    );
    await t.dataSource.query(
      `INSERT INTO webhook_deliveries (workspace_id, webhook_id, event_id, event_type, status, attempts, next_attempt_at)
       VALUES ($1, $2, $3, 'post.failed', 'pending', 0, now() - interval '20 seconds')`,
      [ws.workspaceId, hook.id, event.id],
    );
    const [got] = await receiver.waitForCount('/lost-job', 1, 5_000);
    expect(got.headers['webhook-id']).toBe(event.id);
    await sleep(700);
    expect(receiver.at('/lost-job')).toHaveLength(1);
  });

  describe('with a second worker process on the same database', () => {
    let worker: INestApplicationContext;
    beforeAll(async () => {
      worker = await NestFactory.createApplicationContext(AppModule.forRole('worker'), { logger: false });
      await worker.init();
    });
    afterAll(async () => {
      await worker.close();
    });

    it('relays concurrently without delivering any event twice', async () => {
      const ws = await t.createWorkspace();
      await subscribe(ws.key, '/concurrent');
      const ids: string[] = [];
      await Promise.all(
        Array.from({ length: 20 }, async (_, batch) => {
          await t.dataSource.transaction(async (em) => {
            for (let i = 0; i < 10; i++) {
              const e = await t.app
                .get(EventsService)
                .record(em, syntheticEvent('post.published', ws.workspaceId, { batch, i }));
              ids.push(e.id);
            }
          });
        }),
      );
      await receiver.waitForCount('/concurrent', 200, 20_000);
      await sleep(700);
      const got = receiver.at('/concurrent').map((r) => String(r.headers['webhook-id']));
      expect(got).toHaveLength(200);
      expect(new Set(got)).toEqual(new Set(ids));
      expect(await undispatched(ws.workspaceId)).toBe(0);
    });
  });
});
