import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { MastodonFake } from '../fakes/mastodon.fake';
import { FAST_PUBLISHING_ENV, waitFor } from '../support/publishing-env';
import { compiledEntry } from '../support/service-process';
import { TestApp } from '../support/test-app';

/** A real worker process (APP_ROLE=worker) on the same database and Redis prefix as the API under test. */
function startWorker(t: TestApp): ChildProcess {
  const child = spawn(process.execPath, compiledEntry('main'), {
    cwd: join(__dirname, '..', '..'),
    env: {
      ...process.env,
      ...FAST_PUBLISHING_ENV,
      APP_ROLE: 'worker',
      DATABASE_URL: t.env.databaseUrl,
      REDIS_PREFIX: t.env.redisPrefix,
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  child.stderr?.resume();
  return child;
}

describe('a worker killed mid-publish', () => {
  let t: TestApp;
  let mastodon: MastodonFake;
  const workers: ChildProcess[] = [];

  beforeAll(async () => {
    mastodon = new MastodonFake({ tokens: ['tok'] });
    await mastodon.start();
    t = await TestApp.start({ role: 'api', env: FAST_PUBLISHING_ENV });
  });
  afterAll(async () => {
    for (const w of workers) w.kill('SIGKILL');
    await t?.close();
    await mastodon.stop();
  });

  it('does not double-post: after a restart the post is published and the network holds exactly one status', async () => {
    const { key } = await t.createWorkspace();
    const channel = await t.request('POST', '/api/channels', {
      key,
      body: { provider: 'mastodon', credentials: { instanceUrl: mastodon.baseUrl, accessToken: 'tok' } },
    });
    const hold = mastodon.holdNextPublish();
    workers.push(startWorker(t));
    const created = await t.request('POST', '/api/posts', {
      key,
      body: { content: 'crash-safe', channelIds: [channel.body.id], publishNow: true },
    });
    expect(created.status).toBe(201);

    await hold.arrived; // the status exists on the network; the worker is waiting for the answer
    workers[0].kill('SIGKILL');
    await new Promise((r) => workers[0].once('exit', r));
    hold.release();
    const stuck = await t.request('GET', `/api/posts/${created.body.id}`, { key });
    expect(stuck.body.status).toBe('publishing');

    workers.push(startWorker(t));
    const post = await waitFor(
      async () => (await t.request('GET', `/api/posts/${created.body.id}`, { key })).body,
      (p) => p.status !== 'publishing',
      // A fresh worker compiles and boots before it can pick the job up: slow on a loaded machine.
      120_000,
      250,
    );
    expect(post.status).toBe('published');
    const statuses = mastodon.statuses.filter((s) => s.text === 'crash-safe');
    expect(statuses).toHaveLength(1);
    expect(post.targets[0].platformPostId).toBe(statuses[0].id);
    expect(post.targets[0].attempts).toBeGreaterThanOrEqual(2);
  }, 180_000);
});
