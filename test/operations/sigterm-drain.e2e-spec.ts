import { request as httpRequest } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { EventsService } from '../../src/events/events.service';
import { MastodonFake } from '../fakes/mastodon.fake';
import { FAST_PUBLISHING_ENV } from '../support/publishing-env';
import { ServiceProcess } from '../support/service-process';
import { syntheticEvent } from '../support/synthetic-event';
import { TestApp } from '../support/test-app';
import { WebhookReceiver } from '../support/webhook-receiver';

/** The drain budget of the processes these specs start. */
const SHUTDOWN_TIMEOUT_MS = 20_000;

/** A real process of the service (compiled src/main.ts) on the test's database and Redis prefix. */
function startProcess(t: TestApp, name: string, env: Record<string, string> & { APP_ROLE: 'api' | 'worker' }) {
  return ServiceProcess.start(name, {
    ...FAST_PUBLISHING_ENV,
    DATABASE_URL: t.env.databaseUrl,
    REDIS_PREFIX: t.env.redisPrefix,
    SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS),
    WEBHOOK_SWEEP_INTERVAL_MS: '500',
    ...env,
  });
}

describe('SIGTERM drains a worker', () => {
  let t: TestApp;
  let mastodon: MastodonFake;
  let receiver: WebhookReceiver;
  const children: ServiceProcess[] = [];

  beforeAll(async () => {
    mastodon = new MastodonFake({ tokens: ['tok'] });
    receiver = new WebhookReceiver();
    await Promise.all([mastodon.start(), receiver.start()]);
    t = await TestApp.start({ role: 'api', env: FAST_PUBLISHING_ENV });
  });
  afterAll(async () => {
    await Promise.all(children.map((c) => c.stop()));
    await t?.close();
    await Promise.all([mastodon.stop(), receiver.stop()]);
  });

  const worker = async (name: string) => {
    const child = await startProcess(t, name, { APP_ROLE: 'worker' });
    children.push(child);
    return child;
  };

  it('lets the publish in flight finish and record its outcome before exiting: one status, one attempt', async () => {
    const { key } = await t.createWorkspace();
    const channel = await t.connectChannel(key, 'mastodon', { instanceUrl: mastodon.baseUrl, accessToken: 'tok' });
    const hold = mastodon.holdNextPublish();
    const first = await worker('worker 1');
    const created = await t.request('POST', '/api/posts', {
      key,
      body: { content: 'drained', channelIds: [channel], publishNow: true },
    });
    expect(created.status).toBe(201);

    await hold.arrived; // the worker waits for the network's answer
    first.kill('SIGTERM');
    await sleep(1_000); // the worker is draining, not gone
    expect(first.running).toBe(true);
    hold.release();
    const { code, signal } = await first.exit;
    expect(code === 0 || signal === 'SIGTERM').toBe(true);

    // Recorded by the draining worker itself: no other worker ran.
    const post = (await t.request('GET', `/api/posts/${created.body.id}`, { key })).body;
    expect(post.status).toBe('published');
    expect(post.targets[0].attempts).toBe(1);

    // A new worker finds nothing to redo.
    await (await worker('worker 2')).ready();
    await sleep(4_000);
    const statuses = mastodon.statuses.filter((s) => s.text === 'drained');
    expect(statuses).toHaveLength(1);
    expect(post.targets[0].platformPostId).toBe(statuses[0].id);
    expect((await t.request('GET', `/api/posts/${created.body.id}`, { key })).body.targets[0].attempts).toBe(1);
  }, 120_000);

  it('lets a webhook delivery in flight finish and record it before exiting: delivered once, not lost', async () => {
    await Promise.all(children.map((c) => c.stop())); // only this test's workers from here on
    const { key, workspaceId } = await t.createWorkspace();
    const hook = await t.request('POST', '/api/webhooks', {
      key,
      body: { url: receiver.url('/drain'), events: ['post.published'] },
    });
    expect(hook.status).toBe(201);
    const hold = receiver.holdNext('/drain');
    const first = await worker('worker 3');
    const event = await t.dataSource.transaction((em) =>
      t.app.get(EventsService).record(em, syntheticEvent('post.published', workspaceId, { id: 'drained-hook' })),
    );

    await hold.arrived; // the receiver has the request; the worker waits for its answer
    first.kill('SIGTERM');
    await sleep(1_000);
    expect(first.running).toBe(true);
    hold.release();
    const { code, signal } = await first.exit;
    expect(code === 0 || signal === 'SIGTERM').toBe(true);

    // Recorded as delivered by the draining worker: one attempt, succeeded.
    const deliveries = async () =>
      (await t.request('GET', `/api/webhooks/${hook.body.id}/deliveries`, { key })).body.data as any[];
    const attempts = [expect.objectContaining({ attempt: 1, succeeded: true, statusCode: 204, eventId: event.id })];
    expect(await deliveries()).toEqual(attempts);

    // A new worker (its relay sweep and reconciler run every 500 ms) finds nothing to send again.
    await (await worker('worker 4')).ready();
    await sleep(3_000);
    const got = receiver.at('/drain');
    expect(got).toHaveLength(1);
    expect(got[0].headers['webhook-id']).toBe(event.id);
    expect(await deliveries()).toEqual(attempts);
  }, 120_000);
});

describe('SIGTERM drains an API process', () => {
  let t: TestApp;
  let api: ServiceProcess | undefined;

  beforeAll(async () => {
    t = await TestApp.start({ role: 'api' });
  });
  afterAll(async () => {
    await api?.stop();
    await t?.close();
  });

  it('finishes a request in flight, then stops accepting and exits', async () => {
    const { key } = await t.createWorkspace();
    api = await startProcess(t, 'api', { APP_ROLE: 'api' });
    await api.ready();
    const base = api.baseUrl!;

    // A chunk upload whose body arrives slowly: in flight when SIGTERM comes.
    const init = await fetch(`${base}/api/media/upload/initialize`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ filename: 'a.gif', mimeType: 'image/gif', size: 6 }),
    }).then((r) => r.json() as Promise<{ id: string }>);
    const boundary = 'sps-drain';
    const head = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="mediaId"\r\n\r\n${init.id}\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="chunkIndex"\r\n\r\n0\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="chunk"; filename="c"\r\n` +
        'Content-Type: application/octet-stream\r\n\r\n',
    );
    const tail = Buffer.from(`GIF89a\r\n--${boundary}--\r\n`);
    let sendTail!: () => void;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(head);
        sendTail = () => {
          controller.enqueue(tail);
          controller.close();
        };
      },
    });
    const inFlight = fetch(`${base}/api/media/upload/file`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': `multipart/form-data; boundary=${boundary}` },
      body,
      duplex: 'half',
    });
    await sleep(500);
    api.kill('SIGTERM');
    const termAt = Date.now();
    await sleep(500);
    sendTail();
    const res = await inFlight;
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ id: init.id, receivedChunks: [0] });

    // The answered request's keep-alive socket does not hold the process past its drain budget
    // (SHUTDOWN_TIMEOUT_MS); it used to, for Fastify's 72 s keep-alive timeout.
    const { code, signal } = await api.exit;
    expect(code === 0 || signal === 'SIGTERM').toBe(true);
    expect(Date.now() - termAt).toBeLessThan(SHUTDOWN_TIMEOUT_MS);
    await expect(fetch(`${base}/api/health/live`)).rejects.toThrow();
  }, 120_000);
});

describe('SIGTERM under load from clients that open one connection per request', () => {
  let t: TestApp;
  let api: ServiceProcess | undefined;
  /** Keeps accepting this long after SIGTERM while readiness answers 503. */
  const DRAIN_DELAY_MS = 1_500;

  beforeAll(async () => {
    t = await TestApp.start({ role: 'api' });
  });
  afterAll(async () => {
    await api?.stop();
    await t?.close();
  });

  interface Outcome {
    path: string;
    /** When the request was fully written; undefined when the connection failed first. */
    sentAt?: number;
    status?: number;
    body?: string;
    error?: string;
    errorAt?: number;
  }

  /** One request on a connection of its own (no keep-alive), as many load generators and proxies send them. */
  function once(base: string, path: string, key: string): Promise<Outcome> {
    return new Promise((resolve) => {
      const outcome: Outcome = { path };
      const failed = (err: NodeJS.ErrnoException) =>
        resolve({ ...outcome, error: err.code ?? err.message, errorAt: Date.now() });
      const req = httpRequest(`${base}${path}`, {
        agent: false,
        headers: { connection: 'close', 'x-api-key': key },
        timeout: 30_000,
      });
      req.on('finish', () => (outcome.sentAt = Date.now()));
      req.on('response', (res) => {
        outcome.status = res.statusCode;
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (body += d));
        res.on('end', () => resolve({ ...outcome, body }));
        res.on('error', failed);
      });
      req.on('timeout', () => req.destroy(new Error('client timeout')));
      req.on('error', failed);
      req.end();
    });
  }

  it('stops being ready first, answers every request it accepted, and refuses the rest cleanly', async () => {
    const { key } = await t.createWorkspace();
    api = await startProcess(t, 'api', {
      APP_ROLE: 'api',
      SHUTDOWN_DRAIN_DELAY_MS: String(DRAIN_DELAY_MS),
      LOG_LEVEL: 'info',
    });
    await api.ready();
    const base = api.baseUrl!;

    const outcomes: Outcome[] = [];
    let stop = false;
    const client = async (path: string) => {
      while (!stop) {
        const outcome = await once(base, path, key);
        outcomes.push(outcome);
        if (outcome.error === 'ECONNREFUSED') await sleep(20);
      }
    };
    const clients = [...Array.from({ length: 15 }, () => client('/api/posts?limit=5')), client('/api/health/ready')];
    await sleep(1_500);
    const termAt = Date.now();
    api.kill('SIGTERM');
    const { code, signal } = await api.exit;
    const exitedAt = Date.now();
    await sleep(300);
    stop = true;
    await Promise.all(clients);

    expect(code === 0 || signal === 'SIGTERM').toBe(true);
    expect(exitedAt - termAt).toBeLessThan(SHUTDOWN_TIMEOUT_MS);
    const closed = api.output.map((l) => JSON.parse(l)).find((l) => l.msg?.startsWith('Stopped accepting'));
    const closedAt = Date.parse(closed.time);
    expect(closedAt - termAt).toBeGreaterThanOrEqual(DRAIN_DELAY_MS);
    const before = outcomes.filter((o) => o.sentAt !== undefined && o.sentAt < termAt);
    const after = outcomes.filter((o) => !before.includes(o));
    expect(before.length).toBeGreaterThan(50);

    // Every request sent before the signal was answered.
    expect(before.filter((o) => o.status === undefined)).toEqual([]);
    // After it: answered while the listener accepts (1.5 s), refused once it is closed. A reset is
    // only possible for a connection the kernel took in the instant the listener closed, before the
    // service could (a closing listener resets those): the drain shrinks that queue to one first, so
    // usually none is (it used to be most of the 16 clients, their requests sent), now and then a
    // few caught mid-handshake.
    expect(after.some((o) => o.path.startsWith('/api/posts') && o.status === 200)).toBe(true);
    expect(after.some((o) => o.error === 'ECONNREFUSED')).toBe(true);
    const failed = outcomes.filter((o) => o.status === undefined && o.error !== 'ECONNREFUSED');
    // Log times are in milliseconds, written just after the close.
    const atTheClose = failed.filter((o) => o.errorAt! >= closedAt - 20 && o.errorAt! <= closedAt + 50);
    expect(failed.filter((o) => !atTheClose.includes(o))).toEqual([]);
    expect(atTheClose.length).toBeLessThan(8);

    // Readiness turned 503 at once (allowing for the signal to arrive), while requests were still served.
    const readiness = after.filter((o) => o.path === '/api/health/ready' && o.status !== undefined);
    expect(readiness.some((o) => o.status === 503)).toBe(true);
    expect(readiness.filter((o) => o.status === 200 && o.sentAt! > termAt + 250)).toEqual([]);

    // Every answer is 200, or a 503 readiness report; any error in the service's shape.
    for (const o of outcomes.filter((x) => x.status !== undefined && x.status !== 200)) {
      const body = JSON.parse(o.body!);
      if (o.path === '/api/health/ready') expect(body.status).toBe('error');
      else expect(Object.keys(body).filter((k) => !['error', 'message'].includes(k))).toEqual([]);
    }
  }, 120_000);
});
