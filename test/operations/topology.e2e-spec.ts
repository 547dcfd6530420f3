/**
 * Several processes, one behaviour. Two `APP_ROLE=api` and two `APP_ROLE=worker` processes of the compiled
 * service run on one database, one Redis prefix and the S3-compatible server of the test setup
 * (MEDIA_STORAGE=s3), against a Mastodon fake and a webhook receiver; requests alternate between the two APIs.
 *
 * Deadlines are generous and nothing asserts a duration: on a loaded machine everything is slower, never
 * different. The spec prints its own runtime.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { MASTODON_ROUTES, MastodonFake } from '../fakes/mastodon.fake';
import { testS3Env } from '../setup/s3-server';
import { FAST_PUBLISHING_ENV, waitFor } from '../support/publishing-env';
import { ServiceProcess, compiledService, runCli } from '../support/service-process';
import { TestEnvironment } from '../support/test-environment';
import { WebhookReceiver } from '../support/webhook-receiver';
import { paddedMp4 } from '../factories/video.factory';

const MiB = 1024 * 1024;
/** Period of the analytics collection in this spec. */
const ANALYTICS_INTERVAL_S = 4;
const SCHEDULED_POSTS = 500;
const WEBHOOK_POSTS = 100;

interface Reply<T = any> {
  status: number;
  body: T;
}

async function call<T = any>(
  base: string,
  method: string,
  path: string,
  opts: { key?: string; body?: unknown; form?: FormData; headers?: Record<string, string> } = {},
): Promise<Reply<T>> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.key) headers['x-api-key'] = opts.key;
  let body: string | FormData | undefined = opts.form;
  if (opts.body !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(opts.body);
  }
  const res = await fetch(`${base}${path}`, { method, headers, body, signal: AbortSignal.timeout(60_000) });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

/** Runs `task(i)` for i in [0, n), `concurrency` at a time. */
async function pool(n: number, concurrency: number, task: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) await task(next++);
    }),
  );
}

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

describe('two API and two worker processes behave like one', () => {
  const env = new TestEnvironment();
  const started = Date.now();
  /** Figures printed at the end (what the run looked like; nothing here is asserted on). */
  const summary: Record<string, unknown> = {};
  let db: Client;
  let mastodon: MastodonFake;
  let receiver: WebhookReceiver;
  let apis: ServiceProcess[] = [];
  let workers: ServiceProcess[] = [];
  let admin: string;
  /** The base URL of the API that serves request number `i` (they alternate). */
  const api = (i: number) => apis[i % 2].baseUrl!;
  const cliKey = async (workspace: string, extra: string[] = []) =>
    (
      await runCli<{ key: string; id: string; workspaceId: string }>([
        'keys:create',
        '--workspace',
        workspace,
        ...extra,
      ])
    ).key;
  const unlimited = ['--rate-limit', '100000000', '--burst', '100000000'];

  beforeAll(async () => {
    const build = compiledService();
    mastodon = new MastodonFake({ tokens: ['tok-hooks', 'tok-posts'] });
    receiver = new WebhookReceiver();
    await Promise.all([mastodon.start(), receiver.start(), env.create()]);
    db = new Client({ connectionString: env.databaseUrl });
    await db.connect();
    // Every start of a periodic job (the PeriodicJobs's claim in scheduled_jobs), as the database saw it.
    await db.query(`
      CREATE TABLE topology_job_starts (name text NOT NULL, started_at timestamptz NOT NULL);
      CREATE FUNCTION topology_job_started() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'INSERT' OR NEW.last_started_at IS DISTINCT FROM OLD.last_started_at THEN
          INSERT INTO topology_job_starts VALUES (NEW.name, NEW.last_started_at);
        END IF;
        RETURN NEW;
      END $$;
      CREATE TRIGGER topology_job_started AFTER INSERT OR UPDATE ON scheduled_jobs
        FOR EACH ROW EXECUTE FUNCTION topology_job_started();`);

    const common = {
      ...FAST_PUBLISHING_ENV,
      ...testS3Env(),
      ANALYTICS_INTERVAL_SECONDS: String(ANALYTICS_INTERVAL_S),
      PUBLISH_CONCURRENCY: '25',
      WEBHOOK_SWEEP_INTERVAL_MS: '1000',
      SHUTDOWN_TIMEOUT_MS: '5000',
    };
    const starting = [
      ServiceProcess.start('api 1', { ...common, APP_ROLE: 'api' }, build),
      ServiceProcess.start('api 2', { ...common, APP_ROLE: 'api' }, build),
      ServiceProcess.start('worker 1', { ...common, APP_ROLE: 'worker' }, build),
      ServiceProcess.start('worker 2', { ...common, APP_ROLE: 'worker' }, build),
    ];
    const all = await Promise.all(starting);
    apis = all.slice(0, 2);
    workers = all.slice(2);
    [admin] = await Promise.all([cliKey('topology', unlimited), ...all.map((p) => p.ready(120_000))]);
    summary.startUpSeconds = Math.round((Date.now() - started) / 1000);
  }, 240_000);

  afterAll(async () => {
    await Promise.all([...apis, ...workers].map((p) => p.stop()));
    await db?.end();
    await Promise.all([mastodon?.stop(), receiver?.stop()]);
    await env.destroy();
    console.log(`topology spec: ${((Date.now() - started) / 1000).toFixed(1)} s in all, ${JSON.stringify(summary)}`);
  });

  it('shares one rate-limit bucket per key across the APIs: the limit is not doubled', async () => {
    const key = await cliKey('topology', ['--rate-limit', '1', '--burst', '10']);
    const statuses: number[] = [];
    for (let i = 0; i < 20; i++) statuses.push((await call(api(i), 'GET', '/api/api-keys', { key })).status);
    // Ten tokens in all (one bucket), not ten per process: then every further request is refused, on both.
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(200));
    expect(statuses.slice(10)).toEqual(Array(10).fill(429));
  });

  it('refuses a key revoked on one API on the next request to the other', async () => {
    for (let i = 0; i < 6; i++) {
      const created = await call(api(i), 'POST', '/api/api-keys', { key: admin, body: { name: `victim ${i}` } });
      expect(created.status).toBe(201);
      const victim: string = created.body.key;
      // Both processes have the key in their cache.
      expect((await call(api(i), 'GET', '/api/api-keys', { key: victim })).status).toBe(200);
      expect((await call(api(i + 1), 'GET', '/api/api-keys', { key: victim })).status).toBe(200);

      expect((await call(api(i), 'DELETE', `/api/api-keys/${created.body.id}`, { key: admin })).status).toBe(204);
      expect((await call(api(i + 1), 'GET', '/api/api-keys', { key: victim })).status).toBe(401);
      expect((await call(api(i), 'GET', '/api/api-keys', { key: victim })).status).toBe(401);
    }
  });

  it('finalizes an upload whose chunks went to different APIs (S3 multipart, bookkeeping in Postgres)', async () => {
    const file = paddedMp4(11 * MiB);
    const init = await call(api(0), 'POST', '/api/media/upload/initialize', {
      key: admin,
      body: { filename: 'topology.mp4', mimeType: 'video/mp4', size: file.length },
    });
    expect(init.status).toBe(201);
    const { id, chunkSize, totalChunks } = init.body;
    expect([chunkSize, totalChunks]).toEqual([5 * MiB, 3]);

    // All three at once, to both processes: each may start the multipart upload; one upload id is kept.
    const sent = await Promise.all(
      [0, 1, 2].map((index) => {
        const form = new FormData();
        form.append('mediaId', id);
        form.append('chunkIndex', String(index));
        form.append('chunk', new Blob([file.subarray(index * chunkSize, (index + 1) * chunkSize)]), 'chunk.bin');
        return call(api(index), 'POST', '/api/media/upload/file', { key: admin, form });
      }),
    );
    expect(sent.map((r) => r.status)).toEqual([200, 200, 200]);

    const fin = await call(api(1), 'POST', '/api/media/upload/finalize', { key: admin, body: { mediaId: id } });
    expect(fin.status).toBe(200);
    expect(fin.body).toMatchObject({ id, status: 'ready', size: file.length, sha256: sha256(file) });
    expect((await call(api(0), 'GET', `/api/media/${id}`, { key: admin })).body).toMatchObject({
      status: 'ready',
      sha256: sha256(file),
    });
  });

  /** Creates posts through alternating APIs; returns their ids by content. */
  async function createPosts(
    key: string,
    channelId: string,
    contents: string[],
    when: () => { publishNow: true } | { scheduledAt: string },
  ): Promise<Map<string, string>> {
    const ids = new Map<string, string>();
    await pool(contents.length, 12, async (i) => {
      for (;;) {
        const res = await call(api(i), 'POST', '/api/posts', {
          key,
          headers: { 'idempotency-key': randomUUID() },
          body: { content: contents[i], channelIds: [channelId], ...when() },
        });
        // A scheduled time that passed while the request waited for a loaded machine: ask again.
        if (res.status === 422 && /future/.test(JSON.stringify(res.body))) continue;
        expect(res.status).toBe(201);
        ids.set(contents[i], res.body.id);
        return;
      }
    });
    return ids;
  }

  const connect = async (key: string, token: string): Promise<string> => {
    const res = await call(api(0), 'POST', '/api/channels', {
      key,
      body: { provider: 'mastodon', credentials: { instanceUrl: mastodon.baseUrl, accessToken: token } },
    });
    expect(res.status).toBe(201);
    return res.body.id;
  };

  let hookPosts: Map<string, string>;

  it('delivers each webhook once, whichever worker takes it (the receiver counts webhook-id)', async () => {
    const key = await cliKey('topology-hooks', unlimited);
    const channel = await connect(key, 'tok-hooks');
    const hook = await call(api(1), 'POST', '/api/webhooks', {
      key,
      body: { url: receiver.url('/hooks'), events: ['post.published'] },
    });
    expect(hook.status).toBe(201);

    const contents = Array.from({ length: WEBHOOK_POSTS }, (_, i) => `topology hook ${i}`);
    hookPosts = await createPosts(key, channel, contents, () => ({ publishNow: true }));
    await receiver.waitFor(
      () => new Set(receiver.at('/hooks').map((r) => r.headers['webhook-id'])).size >= WEBHOOK_POSTS,
      120_000,
      `${WEBHOOK_POSTS} webhook deliveries`,
    );
    // Every delivery recorded as succeeded: a second worker could only send one again before this.
    await waitFor(
      async () =>
        (
          await db.query(
            `SELECT count(*)::int AS n FROM webhook_deliveries WHERE webhook_id = $1 AND status = 'succeeded'`,
            [hook.body.id],
          )
        ).rows[0].n as number,
      (n) => n === WEBHOOK_POSTS,
      60_000,
      200,
    );

    const got = receiver.at('/hooks');
    expect(got).toHaveLength(WEBHOOK_POSTS);
    expect(new Set(got.map((r) => r.headers['webhook-id'])).size).toBe(WEBHOOK_POSTS);
    const published = got.map((r) => JSON.parse(r.body).data.id as string).sort();
    expect(published).toEqual([...hookPosts.values()].sort());
  }, 240_000);

  let scheduled: Map<string, string>;
  let killedAt: { statuses: number } | undefined;

  it('publishes 500 scheduled posts exactly once each, although a worker is SIGKILLed mid-run', async () => {
    const key = await cliKey('topology-posts', unlimited);
    const channel = await connect(key, 'tok-posts');
    // Each publication takes 300 ms at the network, so each worker has many in flight when one dies.
    mastodon.setLatency(300, MASTODON_ROUTES.createStatus);
    const ours = () => mastodon.statuses.filter((s) => s.text.startsWith('topology post '));
    const publishRequests = () => mastodon.requests.filter((r) => r.route === MASTODON_ROUTES.createStatus).length;
    const requestsBefore = publishRequests();

    // Due together, a few seconds from now (later posts: as soon as they are accepted).
    const due = Date.now() + 6_000;
    const contents = Array.from(
      { length: SCHEDULED_POSTS },
      (_, i) => `topology post ${i} ${randomBytes(3).toString('hex')}`,
    );
    const killer = (async () => {
      await waitFor(
        async () => ours().length,
        (n) => n >= 100,
        180_000,
        20,
      );
      killedAt = { statuses: ours().length };
      workers[0].kill('SIGKILL');
      await workers[0].exit;
    })();
    scheduled = await createPosts(key, channel, contents, () => ({
      scheduledAt: new Date(Math.max(due, Date.now() + 3_000)).toISOString(),
    }));
    await killer;
    expect(killedAt!.statuses).toBeLessThan(SCHEDULED_POSTS); // killed mid-run

    const targets = async () =>
      (
        await db.query<{ content: string; status: string; attempts: number; platform_post_id: string | null }>(
          `SELECT p.content, t.status, t.attempts, t.platform_post_id
             FROM post_targets t JOIN posts p ON p.id = t.post_id
            WHERE p.workspace_id = (SELECT workspace_id FROM channels WHERE id = $1)`,
          [channel],
        )
      ).rows;
    const rows = await waitFor(
      targets,
      (r) => r.length === SCHEDULED_POSTS && r.every((t) => t.status === 'published'),
      240_000,
      500,
    );

    // Exactly one status per post at the network, and it is the one each post points to.
    const statuses = ours();
    expect(statuses).toHaveLength(SCHEDULED_POSTS);
    const statusByText = new Map(statuses.map((s) => [s.text, s.id]));
    expect(statusByText.size).toBe(SCHEDULED_POSTS);
    for (const row of rows) expect(row.platform_post_id).toBe(statusByText.get(row.content));
    // The SIGKILL cut publications in flight: they were claimed again (same idempotency key) and finished.
    const claimedAgain = rows.filter((r) => r.attempts > 1).length;
    expect(claimedAgain).toBeGreaterThan(0);
    Object.assign(summary, {
      statusesWhenKilled: killedAt!.statuses,
      claimedAgain,
      publishRequests: publishRequests() - requestsBefore, // repeats carry the same Idempotency-Key
    });
    mastodon.setLatency(0, MASTODON_ROUTES.createStatus);
  }, 400_000);

  it('collects analytics once per cadence: one run at a time across workers, each post read once per run', async () => {
    const published = [...mastodon.statuses.filter((s) => s.text.startsWith('topology '))].map((s) => s.id);
    expect(published).toHaveLength(WEBHOOK_POSTS + SCHEDULED_POSTS);
    const reads = () => mastodon.requests.filter((r) => r.route === MASTODON_ROUTES.getStatus);
    // Every post read at least once, and the early ones (webhook test) over several runs.
    await waitFor(
      async () => new Set(reads().map((r) => r.path.split('/').pop())),
      (ids) => published.every((id) => ids.has(id)),
      180_000,
      500,
    );
    const starts = (
      await db.query<{ at: Date }>(
        `SELECT started_at AS at FROM topology_job_starts WHERE name = 'analytics.collect' ORDER BY started_at`,
      )
    ).rows.map((r) => r.at.getTime());
    expect(starts.length).toBeGreaterThanOrEqual(3);
    summary.analyticsRuns = starts.length;
    // Two workers tick every period, yet runs start at least 80 % of a period apart (the PeriodicJobs's claim).
    for (let i = 1; i < starts.length; i++) {
      expect(starts[i] - starts[i - 1]).toBeGreaterThanOrEqual(ANALYTICS_INTERVAL_S * 1000 * 0.8 - 1);
    }
    // A read belongs to the last run started before it; no post is read twice in one run.
    const perRun = new Map<string, number>();
    for (const r of reads()) {
      const run = starts.filter((s) => s <= r.at).length;
      const key = `${r.path}#${run}`;
      perRun.set(key, (perRun.get(key) ?? 0) + 1);
    }
    const twice = [...perRun].filter(([, n]) => n > 1);
    expect(twice).toEqual([]);
    const runsPerPost = new Map<string, number>();
    for (const k of perRun.keys()) runsPerPost.set(k.split('#')[0], (runsPerPost.get(k.split('#')[0]) ?? 0) + 1);
    const hookStatusIds = mastodon.statuses.filter((s) => s.text.startsWith('topology hook ')).map((s) => s.id);
    expect(Math.max(...hookStatusIds.map((id) => runsPerPost.get(`/api/v1/statuses/${id}`) ?? 0))).toBeGreaterThan(1);

    // Nothing was delivered twice meanwhile either (a late duplicate would show here).
    expect(receiver.at('/hooks')).toHaveLength(WEBHOOK_POSTS);
    expect(hookPosts.size).toBe(WEBHOOK_POSTS);
    expect(scheduled.size).toBe(SCHEDULED_POSTS);
  }, 240_000);
});
