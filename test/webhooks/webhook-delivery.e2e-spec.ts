import { setTimeout as sleep } from 'node:timers/promises';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { EventType } from '../../src/events/event-payloads';
import { EventsService } from '../../src/events/events.service';
import { MastodonFake } from '../fakes/mastodon.fake';
import { syntheticEvent } from '../support/synthetic-event';
import { TestApp } from '../support/test-app';
import { ReceivedWebhook, WebhookReceiver } from '../support/webhook-receiver';

/**
 * Delivery end to end: the real app (relay, Bull worker, OutboundHttp) against a local receiver.
 * Retries are 300 ms apart here and an endpoint is "failing for too long" after 1.5 s.
 *
 * post.published / post.failed / analytics.updated are recorded through EventsService.record in a
 * transaction, which is exactly the input of this module (the posts and analytics features call it
 * the same way); channel.disconnected comes from the real DELETE /channels/:id flow.
 */
describe('webhook delivery', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;
  let mastodon: MastodonFake;

  beforeAll(async () => {
    receiver = new WebhookReceiver();
    mastodon = new MastodonFake({ tokens: [{ token: 'tok-carol', username: 'carol', displayName: 'Carol' }] });
    await Promise.all([receiver.start(), mastodon.start()]);
    t = await TestApp.start({
      env: {
        WEBHOOK_RETRY_SCHEDULE_MS: '300,300,300,300,300,300,300,300',
        WEBHOOK_RETRY_JITTER: '0',
        WEBHOOK_DISABLE_AFTER_MS: '1500',
        WEBHOOK_SWEEP_INTERVAL_MS: '500',
      },
    });
  });
  afterAll(async () => {
    await t.close();
    await Promise.all([receiver.stop(), mastodon.stop()]);
  });

  const subscribe = async (key: string, path: string, extra: Record<string, unknown> = {}) => {
    const res = await t.request('POST', '/api/webhooks', { key, body: { url: receiver.url(path), ...extra } });
    expect(res.status).toBe(201);
    return res.body as { id: string; secret: string };
  };

  const record = (workspaceId: string, type: EventType, data: Record<string, unknown>) =>
    t.dataSource.transaction((em) => t.app.get(EventsService).record(em, syntheticEvent(type, workspaceId, data)));

  const verify = (secret: string, r: ReceivedWebhook) =>
    new StandardWebhook(secret).verify(r.body, r.headers as Record<string, string>);

  const deliveries = async (key: string, webhookId: string) => {
    const res = await t.request('GET', `/api/webhooks/${webhookId}/deliveries?limit=100`, { key });
    expect(res.status).toBe(200);
    return res.body.data as Array<Record<string, any>>;
  };

  const waitForWebhook = async (key: string, id: string, predicate: (w: any) => boolean) => {
    let last: any;
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      last = (await t.request('GET', `/api/webhooks/${id}`, { key })).body;
      if (predicate(last)) return last;
      await sleep(50);
    }
    throw new Error(`webhook never reached the expected state: ${JSON.stringify(last)}`);
  };

  it('delivers channel.disconnected from a real disconnect, signed per Standard Webhooks', async () => {
    const ws = await t.createWorkspace();
    const hook = await subscribe(ws.key, '/disconnect', { events: ['channel.disconnected'] });
    const channel = await t.request('POST', '/api/channels', {
      key: ws.key,
      body: { provider: 'mastodon', credentials: { instanceUrl: mastodon.baseUrl, accessToken: 'tok-carol' } },
    });
    expect(channel.status).toBe(201);
    expect((await t.request('DELETE', `/api/channels/${channel.body.id}`, { key: ws.key })).status).toBe(204);

    const [got] = await receiver.waitForCount('/disconnect', 1);
    const events = await t.request('GET', '/api/events?type=channel.disconnected', { key: ws.key });
    const event = events.body.data[0];
    expect(got.headers['content-type']).toBe('application/json');
    expect(got.headers['webhook-id']).toBe(event.id);
    expect(Math.abs(Number(got.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(30);
    expect(got.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(verify(hook.secret, got)).toEqual(event);
    expect(JSON.parse(got.body)).toEqual({
      id: event.id,
      type: 'channel.disconnected',
      timestamp: event.timestamp,
      workspaceId: ws.workspaceId,
      data: expect.objectContaining({ id: channel.body.id, status: 'disconnected', reason: 'user_request' }),
    });
    expect(JSON.stringify(got.headers)).not.toContain(hook.secret);

    await sleep(100); // the attempt is recorded right after the answer
    const log = await deliveries(ws.key, hook.id);
    expect(log).toEqual([
      {
        attemptId: expect.any(String),
        deliveryId: expect.any(String),
        id: log[0].attemptId, // the deprecated name of attemptId
        eventId: event.id,
        eventType: 'channel.disconnected',
        attempt: 1,
        statusCode: 204,
        durationMs: expect.any(Number),
        error: null,
        succeeded: true,
        createdAt: expect.any(String),
      },
    ]);
  });

  it('sends each subscription only the event types it asked for, within its workspace only', async () => {
    const ws = await t.createWorkspace();
    const other = await t.createWorkspace();
    await subscribe(ws.key, '/only-published', { events: ['post.published'] });
    await subscribe(ws.key, '/only-failed', { events: ['post.failed', 'analytics.updated'] });
    await subscribe(ws.key, '/paused', { enabled: false });
    await subscribe(other.key, '/other-workspace');

    const published = await record(ws.workspaceId, 'post.published', { id: 'p1', status: 'published' });
    const failed = await record(ws.workspaceId, 'post.failed', { id: 'p2', status: 'failed' });
    const analytics = await record(ws.workspaceId, 'analytics.updated', { postId: 'p1' });

    await receiver.waitForCount('/only-published', 1);
    await receiver.waitForCount('/only-failed', 2);
    await sleep(700); // past a sweep: nothing else arrives
    expect(receiver.events('/only-published').map((e) => e.id)).toEqual([published.id]);
    expect(
      receiver
        .events('/only-failed')
        .map((e) => e.id)
        .sort(),
    ).toEqual([failed.id, analytics.id].sort());
    expect(receiver.at('/paused')).toHaveLength(0);
    expect(receiver.at('/other-workspace')).toHaveLength(0);
    const [row] = await t.dataSource.query(
      'SELECT count(*)::int AS n FROM events WHERE workspace_id = $1 AND dispatched_at IS NULL',
      [ws.workspaceId],
    );
    expect(row.n).toBe(0);
  });

  it('retries a failed attempt with the same webhook-id; deliveries lists both attempts', async () => {
    const ws = await t.createWorkspace();
    const hook = await subscribe(ws.key, '/flaky');
    receiver.replyNext('/flaky', 1, { status: 500, body: 'oops' });
    const event = await record(ws.workspaceId, 'post.published', { id: 'p3' });

    const [first, second] = await receiver.waitForCount('/flaky', 2);
    expect(first.status).toBe(500);
    expect(second.status).toBe(204);
    expect(first.headers['webhook-id']).toBe(event.id);
    expect(second.headers['webhook-id']).toBe(event.id);
    expect(second.body).toBe(first.body);
    expect(second.at - first.at).toBeGreaterThanOrEqual(250);
    expect(verify(hook.secret, first)).toEqual(event);
    expect(verify(hook.secret, second)).toEqual(event);

    await sleep(100);
    const log = await deliveries(ws.key, hook.id);
    expect(log.map((a) => [a.attempt, a.statusCode, a.succeeded, a.error])).toEqual([
      [2, 204, true, null],
      [1, 500, false, 'HTTP 500'],
    ]);
    expect(new Set(log.map((a) => a.eventId))).toEqual(new Set([event.id]));
    const page1 = await t.request('GET', `/api/webhooks/${hook.id}/deliveries?limit=1`, { key: ws.key });
    const page2 = await t.request(
      'GET',
      `/api/webhooks/${hook.id}/deliveries?limit=1&cursor=${page1.body.nextCursor}`,
      {
        key: ws.key,
      },
    );
    expect([page1.body.data[0].attempt, page2.body.data[0].attempt]).toEqual([2, 1]);
    expect(page2.body.nextCursor).toBeNull();
    const w = await t.request('GET', `/api/webhooks/${hook.id}`, { key: ws.key });
    expect(w.body).toEqual(expect.objectContaining({ enabled: true, disabledReason: null }));
  });

  it('does not follow redirects: a 3xx is a failed attempt', async () => {
    const ws = await t.createWorkspace();
    const hook = await subscribe(ws.key, '/moved');
    receiver.replyNext('/moved', 1, { status: 302, headers: { location: receiver.url('/elsewhere') } });
    await record(ws.workspaceId, 'post.failed', { id: 'p4' });
    await receiver.waitForCount('/moved', 2);
    expect(receiver.at('/elsewhere')).toHaveLength(0);
    await sleep(100);
    const log = await deliveries(ws.key, hook.id);
    expect(log[1]).toEqual(expect.objectContaining({ attempt: 1, statusCode: 302, succeeded: false }));
    expect(log[1].error).toMatch(/redirect/);
  });

  it('disables an endpoint answering 410 at once, and PUT enabled:true re-enables it', async () => {
    const ws = await t.createWorkspace();
    const hook = await subscribe(ws.key, '/gone');
    receiver.setReply('/gone', { status: 410 });
    await record(ws.workspaceId, 'post.published', { id: 'p5' });
    await receiver.waitForCount('/gone', 1);
    const disabled = await waitForWebhook(ws.key, hook.id, (w) => w.disabledReason === 'gone');
    expect(disabled.enabled).toBe(false);

    await record(ws.workspaceId, 'post.published', { id: 'p6' });
    await sleep(900); // no retry of the first, no delivery of the second
    expect(receiver.at('/gone')).toHaveLength(1);
    const log = await deliveries(ws.key, hook.id);
    expect(log.map((a) => [a.attempt, a.statusCode, a.succeeded])).toEqual([[1, 410, false]]);

    receiver.setReply('/gone', undefined);
    const put = await t.request('PUT', `/api/webhooks/${hook.id}`, {
      key: ws.key,
      body: { url: receiver.url('/gone') },
    });
    expect(put.body).toEqual(expect.objectContaining({ enabled: true, disabledReason: null }));
    const again = await record(ws.workspaceId, 'post.published', { id: 'p7' });
    const got = await receiver.waitForCount('/gone', 2);
    expect(got[1].headers['webhook-id']).toBe(again.id);
  });

  it('disables an endpoint whose attempts keep failing for the configured window (5 days in production)', async () => {
    const ws = await t.createWorkspace();
    const hook = await subscribe(ws.key, '/down');
    receiver.setReply('/down', { status: 503, headers: { 'retry-after': '0' } });
    await record(ws.workspaceId, 'analytics.updated', { postId: 'p8' });
    const disabled = await waitForWebhook(ws.key, hook.id, (w) => w.disabledReason === 'failing');
    expect(disabled.enabled).toBe(false);
    const count = receiver.at('/down').length;
    expect(count).toBeGreaterThanOrEqual(5); // t=0, 0.3, 0.6, 0.9, 1.2, then >= 1.5 s disables
    await sleep(700);
    expect(receiver.at('/down')).toHaveLength(count);
    receiver.setReply('/down', undefined);
  });

  it('signs with both secrets for 24 h after a rotation, then with the new one only', async () => {
    const ws = await t.createWorkspace();
    const hook = await subscribe(ws.key, '/rotated');
    const rotated = await t.request('POST', `/api/webhooks/${hook.id}/rotate-secret`, { key: ws.key });
    expect(rotated.status).toBe(200);
    const newSecret: string = rotated.body.secret;

    const during = await record(ws.workspaceId, 'post.published', { id: 'p9' });
    const [got] = await receiver.waitForCount('/rotated', 1);
    expect(String(got.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verify(newSecret, got)).toEqual(during);
    expect(verify(hook.secret, got)).toEqual(during);
    expect(() => verify('whsec_' + Buffer.alloc(32, 7).toString('base64'), got)).toThrow();

    // The 24 h window ends.
    await t.dataSource.query(
      "UPDATE webhooks SET previous_secret_expires_at = now() - interval '1 second' WHERE id = $1",
      [hook.id],
    );
    const after = await record(ws.workspaceId, 'post.published', { id: 'p10' });
    const [, late] = await receiver.waitForCount('/rotated', 2);
    expect(String(late.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(verify(newSecret, late)).toEqual(after);
    expect(() => verify(hook.secret, late)).toThrow();
  });

  it('POST /webhooks/:id/test sends a signed webhook.test event to that endpoint only', async () => {
    const ws = await t.createWorkspace();
    const hook = await subscribe(ws.key, '/ping', { enabled: false });
    await subscribe(ws.key, '/not-pinged');
    const res = await t.request('POST', `/api/webhooks/${hook.id}/test`, { key: ws.key });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({
      id: expect.any(String),
      type: 'webhook.test',
      timestamp: expect.any(String),
      workspaceId: ws.workspaceId,
      data: expect.objectContaining({ webhookId: hook.id, url: receiver.url('/ping') }),
    });
    const [got] = await receiver.waitForCount('/ping', 1);
    expect(got.headers['webhook-id']).toBe(res.body.id);
    expect(verify(hook.secret, got)).toEqual(res.body);
    await sleep(300);
    expect(receiver.at('/not-pinged')).toHaveLength(0);
    expect((await t.request('GET', '/api/events', { key: ws.key })).body.data).toEqual([]);
    const log = await deliveries(ws.key, hook.id);
    expect(log).toEqual([
      expect.objectContaining({ eventId: res.body.id, eventType: 'webhook.test', succeeded: true }),
    ]);
  });

  it('stops delivering to a deleted subscription', async () => {
    const ws = await t.createWorkspace();
    const hook = await subscribe(ws.key, '/deleted');
    receiver.replyNext('/deleted', 1, { status: 500 });
    await record(ws.workspaceId, 'post.published', { id: 'p11' });
    await receiver.waitForCount('/deleted', 1);
    expect((await t.request('DELETE', `/api/webhooks/${hook.id}`, { key: ws.key })).status).toBe(204);
    await sleep(800);
    expect(receiver.at('/deleted')).toHaveLength(1);
    const [row] = await t.dataSource.query('SELECT count(*)::int AS n FROM webhook_deliveries WHERE webhook_id = $1', [
      hook.id,
    ]);
    expect(row.n).toBe(0);
  });
});
