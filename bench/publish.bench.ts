/**
 * npm run bench:publish
 *
 * (a) Throughput: 2,000 due targets published by our worker (Bull job -> DB claim -> provider
 *     call -> outcome + settle + event) against the Mastodon fake, beside a bare loop that posts
 *     the same 2,000 statuses to the same fake at the same concurrency. Ratio = ours / bare.
 *     Both sides are warmed up, then run three alternating rounds; medians are compared. A no-op
 *     Bull queue at the same concurrency is measured too: the ceiling for one Bull job per target.
 *     A second baseline, "durable bare" (bench/support/durable-bare.ts), does the necessary durable
 *     work per target in plain batched SQL (claim the row, call the fake, record the outcome, settle
 *     the post and insert its event) at the same concurrency: ours is reported against both.
 * (b) Lateness: 10,000 posts scheduled for the same second; p50/p99 of publishedAt - scheduledAt
 *     and the time until the last one was published (target: within 15 s).
 * (c) GET /api/posts p99 with 10,000 and with 1,000,000 posts in the workspace (first page and a
 *     deep keyset page), autocannon in a child process.
 *
 * Everything runs in this process tree against the local Postgres and Redis; the Mastodon fake runs
 * in a child process of its own, like a network peer, for both sides.
 */
import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { Agent, request as httpRequest } from 'node:http';
import Bull from 'bull';
import { Client, Pool } from 'pg';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { DataSource } from 'typeorm';
import { createHttpApp } from '../src/app.factory';
import { ApiKeysService } from '../src/auth/api-keys.service';
import { ChannelsService } from '../src/channels/channels.service';
import { prepareDatabase } from '../src/database/database-bootstrap';
import { EVENTS_NOTIFY_CHANNEL } from '../src/events/events.store';
import { PublishQueue } from '../src/posts/publish.queue';
import { REDIS_URL, benchAppEnv, databaseUrl, deleteRedisKeys, dropDatabase } from './support/bench-env';
import { addCpu, cpuPer, cpuSnapshot, CpuSnapshot } from './support/cpu-share';
import { durableBareLoop } from './support/durable-bare';
import { startMastodonFakeProcess } from './support/fake-process';
import { runLoad } from './support/load-runner';
import { MachineWatch, recordResult } from './support/quiet-machine';

const DB = 'sps_bench_publish';
const PREFIX = 'bench-publish';
const CONCURRENCY = Number(process.env.BENCH_PUBLISH_CONCURRENCY ?? 50);
const TARGETS = Number(process.env.BENCH_TARGETS ?? 2000);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 1000);
const SAME_SECOND = Number(process.env.BENCH_SAME_SECOND ?? 10_000);
const BIG = Number(process.env.BENCH_BIG_POSTS ?? 1_000_000);
const DURATION = Number(process.env.BENCH_DURATION ?? 8);
/** Which parts to run, e.g. BENCH_PARTS=ab to skip the list benchmark while profiling. */
const PARTS = process.env.BENCH_PARTS ?? 'abc';
const keepAlive = new Agent({ keepAlive: true, maxSockets: 256 });

function pct(values: number[], p: number): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN;
}

/** Bare loop: POST /api/v1/statuses to the fake, `concurrency` requests in flight. */
async function bareLoop(base: string, n: number, concurrency: number): Promise<number> {
  const url = new URL('/api/v1/statuses', base);
  const one = (i: number) =>
    new Promise<void>((resolve, reject) => {
      const body = JSON.stringify({ status: `bare ${i}`, visibility: 'public' });
      const req = httpRequest(
        url,
        {
          method: 'POST',
          agent: keepAlive,
          headers: {
            authorization: 'Bearer bench-token',
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
            'idempotency-key': `bare-${i}-${randomUUID()}`,
          },
        },
        (res) => {
          res.resume();
          res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`bare ${res.statusCode}`))));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  let next = 0;
  const started = Date.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) await one(next++);
    }),
  );
  return n / ((Date.now() - started) / 1000);
}

/** Inserts `n` posts with one pending target each, due at `dueAt`; returns their target ids. */
async function seedDue(ds: DataSource, workspaceId: string, channelId: string, n: number, dueAt: Date, label: string) {
  const rows: Array<{ id: string; publication: number; attempts: number; due_at: Date }> = await ds.query(
    `WITH p AS (
       INSERT INTO posts (workspace_id, content, status, scheduled_at, timeline_at, publication, metadata)
       SELECT $1, $3 || ' ' || g, 'scheduled', $4, $4, 1, '{}'::jsonb FROM generate_series(1, $5) g
       RETURNING id)
     INSERT INTO post_targets (post_id, channel_id, position, status, publication, due_at, publication_started_at, attempts)
     SELECT p.id, $2, 0, 'pending', 1, $4, $4, 0 FROM p
     RETURNING id, publication, attempts, due_at`,
    [workspaceId, channelId, label, dueAt, n],
  );
  return rows.map((r) => ({ id: r.id, publication: r.publication, attempts: r.attempts, dueAt: r.due_at }));
}

/**
 * Counts the post events the outbox commits, from the NOTIFY sent with each batch of them (payload:
 * how many events the batch recorded, or one event's id). Waiting on it costs nothing per target,
 * unlike polling the targets' rows: a poll of 2,000 ids every 50 ms cost ~0.12 ms of Postgres CPU per
 * published target, charged to our side only (the durable bare loop knows when it is done).
 */
class CommittedEvents {
  private seen = 0;
  private wake: (() => void) | null = null;
  private constructor(private readonly client: Client) {}

  static async listen(url: string): Promise<CommittedEvents> {
    const client = new Client({ connectionString: url });
    await client.connect();
    const events = new CommittedEvents(client);
    client.on('notification', (n) => {
      const count = /^\d+$/.test(n.payload ?? '') ? Number(n.payload) : 1;
      events.seen += count;
      events.wake?.();
    });
    await client.query(`LISTEN ${EVENTS_NOTIFY_CHANNEL}`);
    return events;
  }

  /** How many events were committed so far: pass it to waitFor as the starting point. */
  get count(): number {
    return this.seen;
  }

  /** Resolves once `n` more events than `from` were committed. */
  async waitFor(from: number, n: number, label: string, timeoutMs: number): Promise<void> {
    const until = Date.now() + timeoutMs;
    while (this.seen - from < n) {
      if (Date.now() > until) throw new Error(`${label}: only ${this.seen - from}/${n} events in time`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 1000);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  }

  close(): Promise<void> {
    return this.client.end();
  }
}

/**
 * Waits until every given target is published or failed: their posts' events (one per post, the
 * posts of this bench have one target each) are counted as they commit, then one query checks the rows.
 */
async function waitAllPublished(
  ds: DataSource,
  events: CommittedEvents,
  from: number,
  label: string,
  targetIds: string[],
  timeoutMs: number,
): Promise<void> {
  await events.waitFor(from, targetIds.length, label, timeoutMs);
  const [{ done }] = await ds.query(
    `SELECT count(*)::int AS done FROM post_targets WHERE id = ANY($1::uuid[]) AND status IN ('published', 'failed')`,
    [targetIds],
  );
  if (done !== targetIds.length) throw new Error(`${label}: ${done}/${targetIds.length} settled after their events`);
}

/** A Bull queue whose processor does nothing: the cost of the queue alone, at our concurrency. */
async function noopBullQueue(concurrency: number) {
  const q = new Bull('bench-noop', REDIS_URL, { prefix: PREFIX });
  let done = 0;
  let wake: (() => void) | null = null;
  void q.process(concurrency, async () => undefined);
  q.on('completed', () => {
    done++;
    wake?.();
  });
  let batch = 0;
  return {
    async run(n: number): Promise<number> {
      const target = done + n;
      const started = Date.now();
      const b = batch++;
      await q.addBulk(
        Array.from({ length: n }, (_, i) => ({
          data: { targetId: `${b}-${i}`, publication: 1 },
          opts: { jobId: `noop:${b}:${i}`, removeOnComplete: true, removeOnFail: true, attempts: 1 },
        })),
      );
      while (done < target) await new Promise<void>((r) => (wake = r));
      return n / ((Date.now() - started) / 1000);
    },
    close: () => q.close(),
  };
}

async function main(): Promise<number> {
  const watch = MachineWatch.start();
  await dropDatabase(DB);
  await deleteRedisKeys(PREFIX);
  Object.assign(process.env, {
    ...benchAppEnv(DB, PREFIX),
    OUTBOUND_ALLOW_PRIVATE: 'true',
    PUBLISH_CONCURRENCY: String(CONCURRENCY),
    PUBLISH_RECONCILE_SECONDS: '3600',
  });
  await prepareDatabase(databaseUrl(DB), true);

  const fake = await startMastodonFakeProcess(['bench-token']);
  const fakeUrl = fake.url;
  const app: NestFastifyApplication = await createHttpApp('all');
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.getHttpServer().address();
  const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  const ds = app.get(DataSource);
  const keys = app.get(ApiKeysService);
  const ws = await keys.resolveWorkspace('bench', true);
  const { key } = await keys.create(ws.id, {
    name: 'bench',
    rateLimitPerMinute: 100_000_000,
    rateLimitBurst: 100_000_000,
  });
  const { channel } = await app
    .get(ChannelsService)
    .connect(ws.id, 'mastodon', { instanceUrl: fakeUrl, accessToken: 'bench-token' });
  const queue = app.get(PublishQueue);
  const committed = await CommittedEvents.listen(databaseUrl(DB));
  const results: Record<string, unknown> = {};

  if (PARTS.includes('a')) {
    // (a) throughput. Both sides are warmed up first (JIT, connections), then measured in three
    // alternating rounds; the medians are compared. A no-op Bull queue at the same concurrency shows
    // the ceiling of any design with one Bull job per target on this machine.
    let round = 0;
    const ourRound = async (n: number): Promise<number> => {
      const label = `thru${round++}`;
      const due = await seedDue(ds, ws.id, channel.id, n, new Date(), label);
      const from = committed.count;
      const started = Date.now();
      await queue.enqueue(due);
      await waitAllPublished(
        ds,
        committed,
        from,
        label,
        due.map((t) => t.id),
        300_000,
      );
      return n / ((Date.now() - started) / 1000);
    };
    const durablePool = new Pool({ connectionString: databaseUrl(DB), max: 20 });
    const durableRound = async (n: number): Promise<number> => {
      const due = await seedDue(ds, ws.id, channel.id, n, new Date(), `durable${round++}`);
      return durableBareLoop(
        durablePool,
        fakeUrl,
        due.map((t) => t.id),
        CONCURRENCY,
        keepAlive,
      );
    };
    const noop = await noopBullQueue(CONCURRENCY);
    await ourRound(WARMUP);
    await bareLoop(fakeUrl, WARMUP, CONCURRENCY);
    await durableRound(WARMUP);
    await noop.run(WARMUP);
    const bareRuns: number[] = [];
    const durableRuns: number[] = [];
    const ourRuns: number[] = [];
    const bullRuns: number[] = [];
    const cpu: CpuSnapshot = {};
    const cpuBare: CpuSnapshot = {};
    const cpuDurable: CpuSnapshot = {};
    for (let i = 0; i < 3; i++) {
      const bareBefore = cpuSnapshot();
      bareRuns.push(await bareLoop(fakeUrl, TARGETS, CONCURRENCY));
      addCpu(cpuBare, bareBefore, cpuSnapshot());
      const durableBefore = cpuSnapshot();
      durableRuns.push(await durableRound(TARGETS));
      addCpu(cpuDurable, durableBefore, cpuSnapshot());
      const before = cpuSnapshot();
      if (process.env.BENCH_MARKS) console.log(`mark start ${process.hrtime.bigint() / 1000n}`);
      ourRuns.push(await ourRound(TARGETS));
      if (process.env.BENCH_MARKS) console.log(`mark end ${process.hrtime.bigint() / 1000n}`);
      addCpu(cpu, before, cpuSnapshot());
      bullRuns.push(await noop.run(TARGETS));
    }
    await noop.close();
    await durablePool.end();
    const bare = pct(bareRuns, 50);
    const durable = pct(durableRuns, 50);
    const ours = pct(ourRuns, 50);
    const bullCeiling = pct(bullRuns, 50);
    const [{ published, statuses }] = await ds.query(
      `SELECT count(*)::int AS published, count(DISTINCT platform_post_id)::int AS statuses
         FROM post_targets WHERE status = 'published'`,
    );
    results.throughput = {
      targets: TARGETS,
      concurrency: CONCURRENCY,
      oursPerSec: ours,
      barePerSec: bare,
      ratio: ours / bare,
      durableBarePerSec: durable,
      ratioToDurableBare: ours / durable,
      noopBullJobsPerSec: bullCeiling,
      runs: { ours: ourRuns, bare: bareRuns, durableBare: durableRuns, noopBull: bullRuns },
      cpuMsPerTarget: Object.fromEntries(Object.entries(cpu).map(([k, v]) => [k, (v * 1000) / (3 * TARGETS)])),
      cpuMsPerTargetTotal: (Object.values(cpu).reduce((a, b) => a + b, 0) * 1000) / (3 * TARGETS),
      durableBareCpuMsPerTarget: Object.fromEntries(
        Object.entries(cpuDurable).map(([k, v]) => [k, (v * 1000) / (3 * TARGETS)]),
      ),
      publishedTargets: published,
      distinctStatuses: statuses,
    };
    const runs = (r: number[]) => r.map((x) => x.toFixed(0)).join(', ');
    console.log(`(a) CPU per published target: ${cpuPer(cpu, 3 * TARGETS)}`);
    console.log(`(a) CPU per bare-loop request: ${cpuPer(cpuBare, 3 * TARGETS)}`);
    console.log(`(a) CPU per durable-bare target: ${cpuPer(cpuDurable, 3 * TARGETS)}`);
    console.log(
      `(a) ${TARGETS} due targets at concurrency ${CONCURRENCY}: ours ${ours.toFixed(0)}/s (${runs(ourRuns)}), ` +
        `bare loop ${bare.toFixed(0)}/s (${runs(bareRuns)}), durable bare ${durable.toFixed(0)}/s (${runs(durableRuns)}), ` +
        `no-op Bull jobs ${bullCeiling.toFixed(0)}/s (${runs(bullRuns)}); RATIO publish: ${(ours / bare).toFixed(2)}, ` +
        `to durable bare ${(ours / durable).toFixed(2)} (target >= 0.6); ` +
        `${published} published, ${statuses} distinct statuses`,
    );
  }
  if (PARTS.includes('b')) {
    // (b) lateness: SAME_SECOND posts scheduled for the same second, 4 s ahead
    const at = new Date(Math.ceil((Date.now() + 4000) / 1000) * 1000);
    const same = await seedDue(ds, ws.id, channel.id, SAME_SECOND, at, 'same');
    const from = committed.count;
    await queue.enqueue(same);
    await waitAllPublished(
      ds,
      committed,
      from,
      'same',
      same.map((t) => t.id),
      120_000,
    );
    const late: Array<{ ms: number }> = await ds.query(
      `SELECT extract(epoch FROM (t.published_at - p.scheduled_at)) * 1000 AS ms
         FROM post_targets t JOIN posts p ON p.id = t.post_id WHERE p.content LIKE 'same %'`,
    );
    const ms = late.map((r) => Number(r.ms));
    const maxMs = ms.reduce((a, b) => Math.max(a, b), 0);
    results.lateness = {
      posts: SAME_SECOND,
      p50Ms: pct(ms, 50),
      p99Ms: pct(ms, 99),
      maxMs,
      allPublishedWithinSeconds: maxMs / 1000,
      targetSeconds: 15,
    };
    console.log(
      `(b) ${SAME_SECOND} posts due at the same second: lateness p50 ${pct(ms, 50).toFixed(0)} ms, ` +
        `p99 ${pct(ms, 99).toFixed(0)} ms, all published within ${(maxMs / 1000).toFixed(1)} s (target 15 s)`,
    );
  }
  if (PARTS.includes('c')) {
    // (c) list latency at 10k and 1M posts (a workspace of its own, drafts with one target each)
    const listWs = await keys.resolveWorkspace('bench-list', true);
    const { key: listKey } = await keys.create(listWs.id, {
      name: 'list',
      rateLimitPerMinute: 100_000_000,
      rateLimitBurst: 100_000_000,
    });
    const { channel: listChannel } = await app
      .get(ChannelsService)
      .connect(listWs.id, 'mastodon', { instanceUrl: fakeUrl, accessToken: 'bench-token' });
    const list: Record<string, unknown> = {};
    let have = 0;
    for (const size of [10_000, BIG]) {
      const add = size - have;
      const t1 = Date.now();
      for (let done = 0; done < add; done += 100_000) {
        const n = Math.min(100_000, add - done);
        await ds.query(
          `WITH p AS (
             INSERT INTO posts (workspace_id, content, status, timeline_at, created_at, metadata)
             SELECT $1, 'list ' || g, 'draft', now() - (g || ' seconds')::interval, now() - (g || ' seconds')::interval, '{}'::jsonb
               FROM generate_series($3::int, $3::int + $4::int - 1) g RETURNING id)
           INSERT INTO post_targets (post_id, channel_id, position, status, publication) SELECT p.id, $2, 0, 'pending', 0 FROM p`,
          [listWs.id, listChannel.id, have + done, n],
        );
      }
      // As after any bulk load: vacuum (visibility map) and statistics before measuring.
      await ds.query('VACUUM ANALYZE posts');
      await ds.query('VACUUM ANALYZE post_targets');
      have = size;
      const deep: Array<{ created_at: Date; id: string }> = await ds.query(
        `SELECT created_at, id FROM posts WHERE workspace_id = $1 ORDER BY created_at DESC, id DESC OFFSET $2 LIMIT 1`,
        [listWs.id, Math.floor(size / 2)],
      );
      const cursor = Buffer.from(JSON.stringify([deep[0].created_at.toISOString(), deep[0].id])).toString('base64url');
      const headers = { 'x-api-key': listKey };
      await runLoad({ url: `${base}/api/posts?limit=20`, headers, durationSec: 2, connections: 10, pipelining: 1 }); // warm-up
      const first = await runLoad({
        url: `${base}/api/posts?limit=20`,
        headers,
        durationSec: DURATION,
        connections: 10,
        pipelining: 1,
      });
      const middle = await runLoad({
        url: `${base}/api/posts?limit=20&cursor=${cursor}`,
        headers,
        durationSec: DURATION,
        connections: 10,
        pipelining: 1,
      });
      const filtered = await runLoad({
        url: `${base}/api/posts?limit=20&status=draft&channelId=${listChannel.id}`,
        headers,
        durationSec: DURATION,
        connections: 10,
        pipelining: 1,
      });
      list[size] = {
        seedSeconds: (Date.now() - t1) / 1000,
        firstPage: { p99Ms: first.latencyP99Ms, reqPerSec: first.reqPerSecAvg, non2xx: first.non2xx },
        deepPage: { p99Ms: middle.latencyP99Ms, reqPerSec: middle.reqPerSecAvg, non2xx: middle.non2xx },
        filtered: { p99Ms: filtered.latencyP99Ms, reqPerSec: filtered.reqPerSecAvg, non2xx: filtered.non2xx },
      };
      console.log(
        `(c) GET /api/posts with ${size} posts: p99 first page ${first.latencyP99Ms} ms, deep page ${middle.latencyP99Ms} ms, ` +
          `status+channel filter ${filtered.latencyP99Ms} ms (non-2xx ${first.non2xx + middle.non2xx + filtered.non2xx})`,
      );
    }
    const small = list[10_000] as { firstPage: { p99Ms: number }; deepPage: { p99Ms: number } };
    const large = list[BIG] as { firstPage: { p99Ms: number }; deepPage: { p99Ms: number } };
    const listRatio =
      Math.max(large.firstPage.p99Ms, large.deepPage.p99Ms) / Math.max(small.firstPage.p99Ms, small.deepPage.p99Ms, 1);
    results.list = { ...list, p99RatioBigToSmall: listRatio };
    console.log(`(c) list p99 at ${BIG} / at 10000: ${listRatio.toFixed(2)}x (target <= 1.5x)`);
  }
  void key;

  const machine = watch.finish();
  const recorded =
    PARTS === 'abc' && BIG === 1_000_000
      ? recordResult('bench/results/publish.json', { date: new Date().toISOString(), ...results }, machine)
      : 0;
  await committed.close();
  await app.close();
  await fake.stop();
  keepAlive.destroy();
  await dropDatabase(DB);
  await deleteRedisKeys(PREFIX);
  return recorded;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
