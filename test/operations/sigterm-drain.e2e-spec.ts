import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { MastodonFake } from '../fakes/mastodon.fake';
import { FAST_PUBLISHING_ENV, waitFor } from '../support/publishing-env';
import { TestApp } from '../support/test-app';

/** A real process of the service (src/main.ts) on the test's database and Redis prefix. */
function startProcess(t: TestApp, env: Record<string, string>): ChildProcess {
  const child = spawn(process.execPath, ['-r', 'ts-node/register/transpile-only', 'src/main.ts'], {
    cwd: join(__dirname, '..', '..'),
    env: {
      ...process.env,
      ...FAST_PUBLISHING_ENV,
      DATABASE_URL: t.env.databaseUrl,
      REDIS_PREFIX: t.env.redisPrefix,
      LOG_LEVEL: 'warn',
      SHUTDOWN_TIMEOUT_MS: '20000',
      ...env,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  child.stderr?.resume();
  return child;
}

function exited(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (child.exitCode !== null || child.signalCode !== null) {
    return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  }
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
}

describe('SIGTERM drains a worker', () => {
  let t: TestApp;
  let mastodon: MastodonFake;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    mastodon = new MastodonFake({ tokens: ['tok'] });
    await mastodon.start();
    t = await TestApp.start({ role: 'api', env: FAST_PUBLISHING_ENV });
  });
  afterAll(async () => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    await t?.close();
    await mastodon.stop();
  });

  it('lets the publish in flight finish and record its outcome before exiting: one status, one attempt', async () => {
    const { key } = await t.createWorkspace();
    const channel = await t.connectChannel(key, 'mastodon', { instanceUrl: mastodon.baseUrl, accessToken: 'tok' });
    const hold = mastodon.holdNextPublish();
    const worker = startProcess(t, { APP_ROLE: 'worker' });
    children.push(worker);
    const created = await t.request('POST', '/api/posts', {
      key,
      body: { content: 'drained', channelIds: [channel], publishNow: true },
    });
    expect(created.status).toBe(201);

    await hold.arrived; // the worker waits for the network's answer
    worker.kill('SIGTERM');
    await sleep(1_000); // the worker is draining, not gone
    expect(worker.exitCode).toBeNull();
    hold.release();
    const { code, signal } = await exited(worker);
    expect(code === 0 || signal === 'SIGTERM').toBe(true);

    // Recorded by the draining worker itself: no other worker ran.
    const post = (await t.request('GET', `/api/posts/${created.body.id}`, { key })).body;
    expect(post.status).toBe('published');
    expect(post.targets[0].attempts).toBe(1);

    // A new worker finds nothing to redo.
    const next = startProcess(t, { APP_ROLE: 'worker' });
    children.push(next);
    await sleep(4_000);
    const statuses = mastodon.statuses.filter((s) => s.text === 'drained');
    expect(statuses).toHaveLength(1);
    expect(post.targets[0].platformPostId).toBe(statuses[0].id);
    expect((await t.request('GET', `/api/posts/${created.body.id}`, { key })).body.targets[0].attempts).toBe(1);
  }, 120_000);
});

describe('SIGTERM drains an API process', () => {
  let t: TestApp;
  let api: ChildProcess | undefined;

  beforeAll(async () => {
    t = await TestApp.start({ role: 'api' });
  });
  afterAll(async () => {
    if (api && api.exitCode === null && api.signalCode === null) api.kill('SIGKILL');
    await t?.close();
  });

  it('finishes a request in flight, then stops accepting and exits', async () => {
    const { key } = await t.createWorkspace();
    const port = 20_000 + Math.floor(Math.random() * 20_000);
    api = startProcess(t, { APP_ROLE: 'api', PORT: String(port), HOST: '127.0.0.1' });
    const base = `http://127.0.0.1:${port}`;
    await waitFor(
      () =>
        fetch(`${base}/api/health/live`).then(
          (r) => r.status,
          () => 0,
        ),
      (s) => s === 200,
      60_000,
      250,
    );

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
    await sleep(500);
    sendTail();
    const res = await inFlight;
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ id: init.id, receivedChunks: [0] });

    const { code, signal } = await exited(api);
    expect(code === 0 || signal === 'SIGTERM').toBe(true);
    await expect(fetch(`${base}/api/health/live`)).rejects.toThrow();
  }, 120_000);
});
