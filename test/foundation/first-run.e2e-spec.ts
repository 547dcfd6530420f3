import { ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { makePng } from '../factories/png.factory';
import { FAST_PUBLISHING_ENV, waitFor } from '../support/publishing-env';
import { TestApp } from '../support/test-app';
import { WebhookReceiver } from '../support/webhook-receiver';

const ROOT = join(__dirname, '..', '..');

/** The JavaScript verification snippet of docs/guide.md section 9, exactly as documented. */
function documentedReceiver(): string {
  const guide = readFileSync(join(ROOT, 'docs', 'guide.md'), 'utf8');
  const section = guide.slice(guide.indexOf('## 9. Events and webhooks'), guide.indexOf('## 10. Analytics'));
  const block = /```js\n([\s\S]*?)```/.exec(section);
  if (!block) throw new Error('docs/guide.md section 9 has no js block');
  return block[1];
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * The README tour, step by step through HTTP: a key, a sandbox channel, an image upload, a post
 * published on the sandbox timeline, and the signed post.published webhook verified by the
 * receiver snippet of the guide (run as its own Node process, the way a user would run it).
 */
describe('first run: from a key to a verified webhook on the sandbox network', () => {
  let t: TestApp;
  let snippet: ChildProcess | undefined;
  let snippetOut = '';
  const dir = mkdtempSync(join(tmpdir(), 'sps-first-run-'));
  const receiver = new WebhookReceiver();

  beforeAll(async () => {
    await receiver.start();
    t = await TestApp.start({ env: { ...FAST_PUBLISHING_ENV, WEBHOOK_SWEEP_INTERVAL_MS: '500' } });
  });
  afterAll(async () => {
    snippet?.kill();
    await t?.close();
    await receiver.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('publishes an image post to the sandbox and delivers a post.published the documented snippet verifies', async () => {
    // A key: the workspace's first one (what the CLI prints), then one made over HTTP.
    const first = await t.createWorkspace('first-run');
    const made = await t.request('POST', '/api/api-keys', { key: first.key, body: { name: 'tour' } });
    expect(made.status).toBe(201);
    const key: string = made.body.key;

    // The receiver from the guide, listening on a port of its own.
    const port = await freePort();
    const hook = await t.request('POST', '/api/webhooks', {
      key,
      body: { url: `http://127.0.0.1:${port}/hooks`, events: ['post.published', 'post.failed'] },
    });
    expect(hook.status).toBe(201);
    expect(hook.body.secret).toMatch(/^whsec_/);
    writeFileSync(join(dir, 'receiver.js'), documentedReceiver());
    snippet = spawn(process.execPath, [join(dir, 'receiver.js')], {
      cwd: dir,
      env: {
        ...process.env,
        NODE_PATH: join(ROOT, 'node_modules'),
        WEBHOOK_SECRET: hook.body.secret,
        PORT: String(port),
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    snippet.stdout!.on('data', (c: Buffer) => (snippetOut += c.toString()));
    await waitFor(
      () =>
        fetch(`http://127.0.0.1:${port}/hooks`, { method: 'POST', body: '{}' }).then(
          (r) => r.status,
          () => 0,
        ),
      (status) => status === 400, // up, and refusing an unsigned request
    );
    // A second subscriber shows what goes over the wire.
    await t.request('POST', '/api/webhooks', { key, body: { url: receiver.url('/wire'), events: ['post.published'] } });

    // A sandbox channel.
    const channel = await t.request('POST', '/api/channels', {
      key,
      body: { provider: 'sandbox', credentials: { name: 'My sandbox' } },
    });
    expect(channel.status).toBe(201);

    // An image, uploaded in three steps.
    const png = makePng(4, 3);
    const init = await t.request('POST', '/api/media/upload/initialize', {
      key,
      body: { filename: 'cat.png', mimeType: 'image/png', size: png.length },
    });
    expect(init.status).toBe(201);
    const form = new FormData();
    form.append('mediaId', init.body.id);
    form.append('chunkIndex', '0');
    form.append('chunk', new Blob([png], { type: 'image/png' }), 'cat.png');
    expect((await t.request('POST', '/api/media/upload/file', { key, rawBody: form })).status).toBe(200);
    const ready = await t.request('POST', '/api/media/upload/finalize', { key, body: { mediaId: init.body.id } });
    expect(ready.body).toMatchObject({ status: 'ready', width: 4, height: 3 });

    // Publish now, and wait for it.
    const created = await t.request('POST', '/api/posts', {
      key,
      body: {
        content: 'Hello from the sandbox',
        channelIds: [channel.body.id],
        mediaIds: [init.body.id],
        publishNow: true,
      },
    });
    expect(created.status).toBe(201);
    const post = await waitFor(
      async () => (await t.request('GET', `/api/posts/${created.body.id}`, { key })).body,
      (p) => p.status === 'published' || p.status === 'failed',
    );
    expect(post.status).toBe('published');

    // On the sandbox timeline, with the bytes the network received.
    const timeline = await t.request('GET', `/api/channels/${channel.body.id}/sandbox/posts`, { key });
    expect(timeline.body).toEqual({
      data: [
        {
          id: post.targets[0].platformPostId,
          content: 'Hello from the sandbox',
          media: [
            {
              id: init.body.id,
              mimeType: 'image/png',
              size: png.length,
              sha256: createHash('sha256').update(png).digest('hex'),
              durationMs: null,
            },
          ],
          inReplyTo: null,
          options: { visibility: 'public', contentWarning: null },
          createdAt: expect.any(String),
        },
      ],
      nextCursor: null,
    });

    // The guide's snippet verified the signed delivery.
    await waitFor(
      async () => snippetOut,
      (out) => out.includes(`verified post.published ${post.id}`),
    );
    const [wire] = await receiver.waitForCount('/wire', 1);
    expect(wire.headers['user-agent']).toMatch(/^SocialPublishingService\/[\d.]+$/);
    expect(wire.headers['webhook-signature']).toMatch(/^v1,/);

    // It accepts a correctly signed delivery and refuses one whose body changed on the way.
    const signer = new StandardWebhook(hook.body.secret);
    const send = (body: string) => {
      const now = new Date();
      return fetch(`http://127.0.0.1:${port}/hooks`, {
        method: 'POST',
        headers: {
          'webhook-id': 'msg_manual',
          'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
          'webhook-signature': signer.sign('msg_manual', now, wire.body),
        },
        body,
      });
    };
    expect((await send(wire.body)).status).toBe(204);
    const tampered = await send(wire.body.replace('Hello', 'Hullo'));
    expect(tampered.status).toBe(400);
  });
});
