import { FAST_PUBLISHING_ENV, waitFor } from '../support/publishing-env';
import { ServiceProcess } from '../support/service-process';
import { TestApp } from '../support/test-app';

/** Every JSON line a process writes (stdout and stderr), parsed, across chunk boundaries. */
function jsonLines(child: ServiceProcess): Array<Record<string, unknown>> {
  const lines: Array<Record<string, unknown>> = [];
  for (const stream of [child.child.stdout, child.child.stderr]) {
    let rest = '';
    stream?.on('data', (chunk: Buffer) => {
      const text = rest + chunk.toString('utf8');
      const parts = text.split('\n');
      rest = parts.pop() ?? '';
      for (const part of parts) {
        if (!part.trim()) continue;
        try {
          lines.push(JSON.parse(part) as Record<string, unknown>);
        } catch {
          lines.push({ unparsed: part });
        }
      }
    });
  }
  return lines;
}

/**
 * What an operator reads in the logs of a real worker process (JSON lines at LOG_LEVEL=info): a failed
 * publication with its reason, a retry scheduled, a channel the network disconnected and a shutdown each
 * leave exactly one structured line, with ids and reasons and no secrets.
 */
describe('log lines of publishing and shutdown', () => {
  let t: TestApp;
  let worker: ServiceProcess;
  let lines: Array<Record<string, unknown>>;
  let key: string;
  let channel: string;

  beforeAll(async () => {
    t = await TestApp.start({ role: 'api', env: FAST_PUBLISHING_ENV });
    worker = await ServiceProcess.start('worker', {
      ...FAST_PUBLISHING_ENV,
      APP_ROLE: 'worker',
      DATABASE_URL: t.env.databaseUrl,
      REDIS_PREFIX: t.env.redisPrefix,
      LOG_LEVEL: 'info',
      LOG_FORMAT: 'json',
    });
    lines = jsonLines(worker);
    await worker.ready();
    ({ key } = await t.createWorkspace());
    channel = await t.connectChannel(key, 'sandbox', { name: 'Logged' });
  }, 90_000);
  afterAll(async () => {
    await worker?.stop();
    await t?.close();
  });

  const withMsg = (msg: string, where: Record<string, unknown> = {}) =>
    lines.filter((l) => l.msg === msg && Object.entries(where).every(([k, v]) => l[k] === v));

  async function publish(content: string, channelId = channel): Promise<any> {
    const created = await t.request('POST', '/api/posts', {
      key,
      body: { content, channelIds: [channelId], publishNow: true },
    });
    expect(created.status).toBe(201);
    return waitFor(
      async () => (await t.request('GET', `/api/posts/${created.body.id}`, { key })).body,
      (p) => p.status === 'published' || p.status === 'failed',
    );
  }

  it('logs a failed publication once, with its reason', async () => {
    const post = await publish('Refused #fail-permanent');
    expect(post.status).toBe('failed');
    const failed = await waitFor(
      async () => withMsg('Publication failed', { postId: post.id }),
      (found) => found.length > 0,
    );
    expect(failed).toEqual([
      expect.objectContaining({
        level: 'warn',
        context: 'Publisher',
        time: expect.any(String),
        postId: post.id,
        targetId: expect.stringMatching(/^[0-9a-f-]{36}$/),
        channelId: channel,
        provider: 'sandbox',
        attempt: 1,
        code: 'CONTENT_REJECTED',
        reason: expect.stringContaining('#fail-permanent'),
      }),
    ]);
  });

  it('logs each retry scheduled once, then nothing for the success', async () => {
    const post = await publish('Flaky #fail-transient');
    expect(post.status).toBe('published');
    const retries = withMsg('Publication retry scheduled', { postId: post.id });
    expect(retries.length).toBe(post.targets[0].attempts - 1);
    expect(retries[0]).toEqual(
      expect.objectContaining({
        level: 'info',
        context: 'Publisher',
        targetId: expect.stringMatching(/^[0-9a-f-]{36}$/),
        attempt: 1,
        code: 'PROVIDER_UNAVAILABLE',
        reason: expect.stringContaining('#fail-transient'),
        retryAt: expect.any(String),
        retryInMs: expect.any(Number),
      }),
    );
    expect(withMsg('Publication failed', { postId: post.id })).toEqual([]);
  });

  it('logs a channel the network disconnected once', async () => {
    const revoked = await t.connectChannel(key, 'sandbox', { name: 'Revoked' });
    const post = await publish('Gone #revoke', revoked);
    expect(post.status).toBe('failed');
    const lines = await waitFor(
      async () => withMsg('Channel disconnected by the network', { channelId: revoked }),
      (found) => found.length > 0,
    );
    expect(lines).toEqual([
      expect.objectContaining({
        level: 'warn',
        context: 'Channels',
        channelId: revoked,
        provider: 'sandbox',
        reason: 'credentials_revoked',
        source: 'publish',
        cause: expect.stringContaining('revoked'),
      }),
    ]);
    expect(withMsg('Publication failed', { postId: post.id })).toEqual([
      expect.objectContaining({ code: 'CREDENTIALS_REVOKED' }),
    ]);
  });

  it('logs a shutdown once, and no line carries a key', async () => {
    worker.kill('SIGTERM');
    await worker.exit;
    expect(withMsg('Shutting down')).toEqual([
      expect.objectContaining({ level: 'info', context: 'Main', signal: 'SIGTERM', role: 'worker' }),
    ]);
    expect(lines.filter((l) => 'unparsed' in l)).toEqual([]);
    expect(JSON.stringify(lines)).not.toContain(key);
    expect(JSON.stringify(lines)).not.toMatch(/spk_|whsec_/);
  }, 60_000);
});
