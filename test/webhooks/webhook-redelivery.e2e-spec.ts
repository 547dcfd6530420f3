import { setTimeout as sleep } from 'node:timers/promises';
import { EventType } from '../../src/events/event-payloads';
import { EventsService } from '../../src/events/events.service';
import { waitFor } from '../support/publishing-env';
import { syntheticEvent } from '../support/synthetic-event';
import { TestApp } from '../support/test-app';
import { WebhookReceiver } from '../support/webhook-receiver';

/** Redelivery of one delivery and replay of a time range, against a local receiver. */
describe('webhook redelivery and replay', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    receiver = new WebhookReceiver();
    await receiver.start();
    t = await TestApp.start({
      env: {
        WEBHOOK_RETRY_SCHEDULE_MS: '200',
        WEBHOOK_RETRY_JITTER: '0',
        WEBHOOK_SWEEP_INTERVAL_MS: '300',
        WEBHOOK_REPLAY_COOLDOWN_SECONDS: '2',
      },
    });
  });
  afterAll(async () => {
    await t.close();
    await receiver.stop();
  });

  const subscribe = async (key: string, path: string, extra: Record<string, unknown> = {}) => {
    const res = await t.request('POST', '/api/webhooks', { key, body: { url: receiver.url(path), ...extra } });
    expect(res.status).toBe(201);
    return res.body as { id: string; secret: string };
  };
  const record = (workspaceId: string, type: EventType, data: Record<string, unknown>) =>
    t.dataSource.transaction((em) => t.app.get(EventsService).record(em, syntheticEvent(type, workspaceId, data)));
  const log = async (key: string, webhookId: string) =>
    (await t.request('GET', `/api/webhooks/${webhookId}/deliveries?limit=100`, { key })).body.data as Array<
      Record<string, any>
    >;
  const settledLog = async (key: string, webhookId: string, count: number) => {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const entries = await log(key, webhookId);
      if (entries.length >= count) return entries;
      if (Date.now() > deadline) throw new Error(`only ${entries.length} attempts logged`);
      await sleep(50);
    }
  };

  it('redelivers a failed delivery as a new attempt with the same webhook-id, visible in the log', async () => {
    const ws = await t.createWorkspace();
    receiver.setReply('/down', { status: 500 });
    const hook = await subscribe(ws.key, '/down');
    await record(ws.workspaceId, 'post.published', { id: 'p-1' });
    // First attempt and its one retry fail: the delivery is settled as failed.
    const failed = await settledLog(ws.key, hook.id, 2);
    expect(failed.every((a) => !a.succeeded)).toBe(true);
    const { deliveryId, eventId } = failed[0];
    await sleep(100);

    receiver.setReply('/down', undefined); // the receiver is back
    const res = await t.request('POST', `/api/webhooks/${hook.id}/deliveries/${deliveryId}/redeliver`, {
      key: ws.key,
    });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ deliveryId, eventId, eventType: 'post.published', attempt: 3 });

    const entries = await settledLog(ws.key, hook.id, 3);
    expect(entries[0]).toEqual(expect.objectContaining({ deliveryId, eventId, attempt: 3, succeeded: true }));
    const got = receiver.at('/down');
    expect(got).toHaveLength(3);
    expect(new Set(got.map((r) => r.headers['webhook-id']))).toEqual(new Set([eventId]));
  });

  it('redelivers a delivery that succeeded, and refuses one still pending (409), unknown ids (404), bad ids (400)', async () => {
    const ws = await t.createWorkspace();
    const hook = await subscribe(ws.key, '/ok');
    await record(ws.workspaceId, 'post.failed', { id: 'p-2' });
    const [first] = await settledLog(ws.key, hook.id, 1);
    await sleep(100);
    const url = `/api/webhooks/${hook.id}/deliveries/${first.deliveryId}/redeliver`;
    // Two at once: one is queued, the other finds it pending.
    const [a, b] = await Promise.all([
      t.request('POST', url, { key: ws.key }),
      t.request('POST', url, { key: ws.key }),
    ]);
    expect([a.status, b.status].sort()).toEqual([202, 409]);
    expect([a, b].find((r) => r.status === 409)!.body.error).toBe('CONFLICT');
    await settledLog(ws.key, hook.id, 2);
    expect(receiver.at('/ok')).toHaveLength(2);

    const unknown = '00000000-0000-4000-8000-000000000000';
    expect(
      (await t.request('POST', `/api/webhooks/${hook.id}/deliveries/${unknown}/redeliver`, { key: ws.key })).status,
    ).toBe(404);
    expect(
      (await t.request('POST', `/api/webhooks/${hook.id}/deliveries/nope/redeliver`, { key: ws.key })).status,
    ).toBe(400);
    // Another workspace cannot reach it.
    const other = await t.createWorkspace();
    expect((await t.request('POST', url, { key: other.key })).status).toBe(404);
  });

  it('replays the subscribed events of a time range, keeping webhook-ids, rate-limited per endpoint', async () => {
    const ws = await t.createWorkspace();
    const from = new Date(Date.now() - 1000).toISOString();
    // Events recorded while no endpoint existed (the receiver "was down" and unsubscribed).
    await record(ws.workspaceId, 'post.published', { id: 'r-1' });
    await record(ws.workspaceId, 'post.failed', { id: 'r-2' });
    await record(ws.workspaceId, 'post.published', { id: 'r-3' });
    const to = new Date(Date.now() + 1000).toISOString();
    // The relay has passed them on (to nobody) before the endpoint exists; else it could hand the
    // newest one to the new endpoint itself, and the replay would find it already pending.
    await waitFor(
      () =>
        t.dataSource.query(`SELECT count(*)::int AS n FROM events WHERE workspace_id = $1 AND dispatched_at IS NULL`, [
          ws.workspaceId,
        ]),
      (rows: Array<{ n: number }>) => rows[0].n === 0,
      10_000,
      50,
    );
    const hook = await subscribe(ws.key, '/replay', { events: ['post.published'] });

    const res = await t.request('POST', `/api/webhooks/${hook.id}/replay`, { key: ws.key, body: { from, to } });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ queued: 2, alreadyPending: 0, resumeFrom: null });
    const got = await receiver.waitForCount('/replay', 2);
    expect(got.map((r) => JSON.parse(r.body).data.id).sort()).toEqual(['r-1', 'r-3']);
    const entries = await settledLog(ws.key, hook.id, 2);
    expect(entries.map((e) => e.attempt)).toEqual([1, 1]);

    const again = await t.request('POST', `/api/webhooks/${hook.id}/replay`, { key: ws.key, body: { from, to } });
    expect(again.status).toBe(429);
    expect(again.body.error).toBe('RATE_LIMIT_EXCEEDED');
    expect(Number(again.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);

    await sleep(2100);
    const third = await t.request('POST', `/api/webhooks/${hook.id}/replay`, { key: ws.key, body: { from, to } });
    expect(third.status).toBe(202);
    expect(third.body.queued).toBe(2);
    const all = await receiver.waitForCount('/replay', 4);
    const ids = new Set(all.map((r) => r.headers['webhook-id']));
    expect(ids.size).toBe(2); // the same two events, the same webhook-ids
    const log2 = await settledLog(ws.key, hook.id, 4);
    expect(log2.map((e) => e.attempt).sort()).toEqual([1, 1, 2, 2]);
  });

  it('refuses ranges that are reversed or longer than 7 days', async () => {
    const ws = await t.createWorkspace();
    const hook = await subscribe(ws.key, '/bounds');
    const now = Date.now();
    const iso = (ms: number) => new Date(ms).toISOString();
    const reversed = await t.request('POST', `/api/webhooks/${hook.id}/replay`, {
      key: ws.key,
      body: { from: iso(now), to: iso(now - 1000) },
    });
    expect(reversed.status).toBe(400);
    const tooLong = await t.request('POST', `/api/webhooks/${hook.id}/replay`, {
      key: ws.key,
      body: { from: iso(now - 8 * 24 * 3600 * 1000), to: iso(now) },
    });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.error).toBe('VALIDATION_ERROR');
    const missing = await t.request('POST', `/api/webhooks/${hook.id}/replay`, { key: ws.key, body: {} });
    expect(missing.status).toBe(400);
  });
});
