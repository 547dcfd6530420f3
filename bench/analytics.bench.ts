/**
 * Analytics collection benchmark: one full collection run over BENCH_TARGETS published targets.
 *
 *   npm run bench:analytics       (BENCH_TARGETS=10000 BENCH_ACCOUNTS=10)
 *
 * Setup: the provider fakes run in a child process (so their CPU is not charged to our event loop,
 * as a remote network would not be), with BENCH_ACCOUNTS Mastodon accounts and as many Bluesky
 * accounts; they are seeded through their own HTTP APIs with BENCH_TARGETS / 2 statuses and as
 * many Bluesky posts, each with non-zero counts. The service (createHttpApp('all') as main.ts builds it, on a fresh
 * database `sps_bench_analytics`) connects the 2 x BENCH_ACCOUNTS channels through POST /api/channels;
 * then BENCH_TARGETS / 2 posts with one Mastodon and one Bluesky target each are inserted with SQL as
 * published in the last 12 hours (so every target is due on every run), pointing at the seeded ids.
 *
 * Measured:
 *  1. first run: every target read and changed (first read of non-zero counts): a snapshot per target,
 *     an `analytics.updated` event per post;
 *  2. second run, every target made due again with unchanged counts: reads only, nothing stored but the
 *     latest figures.
 * Each is AnalyticsCollectJob.runNow() (discovery, due-post batches, provider reads with bounded concurrency,
 * one transaction per batch), timed from its start to its last commit. Results: bench/results/analytics.json.
 * Exits 0 when the bench ran (a run slower than 60 s only prints a warning), 1 on errors.
 */
import 'reflect-metadata';
import { ChildProcess, fork } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { Logger } from '@nestjs/common';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { DataSource } from 'typeorm';
import { AnalyticsCollectJob } from '../src/analytics/analytics-collect.job';
import { CollectionStats } from '../src/analytics/analytics-collector.service';
import { createHttpApp } from '../src/app.factory';
import { ApiKeysService } from '../src/auth/api-keys.service';
import { analyticsConfig } from '../src/config/analytics.config';
import { databaseConfig } from '../src/config';
import { prepareDatabase } from '../src/database/database-bootstrap';
import { BlueskyFake } from '../test/fakes/bluesky.fake';
import { MastodonFake } from '../test/fakes/mastodon.fake';
import { benchAppEnv, deleteRedisKeys, dropDatabase, intEnv } from './support/bench-env';
import { MachineWatch, recordResult } from './support/quiet-machine';

const BENCH_DB = 'sps_bench_analytics';
const REDIS_PREFIX = 'bench-analytics';
const TARGET_SECONDS = 60;
const RESULTS_FILE = join(__dirname, '..', '..', 'bench', 'results', 'analytics.json');

// ---------------------------------------------------------------------------------------------------
// Child process: the provider fakes.
// ---------------------------------------------------------------------------------------------------

interface SeedRequest {
  type: 'seed';
  perAccount: number;
}
interface Seeded {
  type: 'seeded';
  mastodon: Array<{ token: string; statuses: Array<{ id: string; url: string }> }>;
  bluesky: Array<{ identifier: string; uris: string[] }>;
  ms: number;
}

async function runWithLimit<T>(items: T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) await fn(items[next++]);
    }),
  );
}

async function postJson(url: string, body: unknown, token?: string): Promise<any> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  const json = await res.json();
  if (!res.ok) throw new Error(`${url} answered ${res.status}: ${JSON.stringify(json)}`);
  return json;
}

const counts = (i: number) => ({ likes: 1 + (i % 50), reposts: i % 7, replies: i % 5, quotes: i % 3 });

async function fakesMain(): Promise<void> {
  const accounts = intEnv('BENCH_ACCOUNTS', 10);
  const tokens = Array.from({ length: accounts }, (_, i) => `bench-tok-${i}`);
  const identifiers = Array.from({ length: accounts }, (_, i) => `bench${i}.test`);
  const mastodon = new MastodonFake({ tokens, logRequests: false });
  const bluesky = new BlueskyFake({
    accounts: identifiers.map((identifier) => ({ identifier, password: 'pw', handle: identifier })),
    logRequests: false,
  });
  await Promise.all([mastodon.start(), bluesky.start()]);
  process.on('message', (msg: SeedRequest | { type: 'stop' }) => {
    if (msg.type === 'stop') {
      void Promise.all([mastodon.stop(), bluesky.stop()]).then(() => process.exit(0));
      return;
    }
    void (async () => {
      const started = Date.now();
      const jobs: Array<() => Promise<void>> = [];
      const seeded: Seeded = { type: 'seeded', mastodon: [], bluesky: [], ms: 0 };
      for (const token of tokens) {
        const entry = { token, statuses: [] as Array<{ id: string; url: string }> };
        seeded.mastodon.push(entry);
        for (let i = 0; i < msg.perAccount; i++) {
          jobs.push(async () => {
            const status = await postJson(`${mastodon.baseUrl}/api/v1/statuses`, { status: `bench ${i}` }, token);
            mastodon.setCounts(status.id, counts(i));
            entry.statuses.push({ id: status.id, url: status.url });
          });
        }
      }
      for (const identifier of identifiers) {
        const session = await postJson(`${bluesky.baseUrl}/xrpc/com.atproto.server.createSession`, {
          identifier,
          password: 'pw',
        });
        const entry = { identifier, uris: [] as string[] };
        seeded.bluesky.push(entry);
        for (let i = 0; i < msg.perAccount; i++) {
          jobs.push(async () => {
            const created = await postJson(
              `${bluesky.baseUrl}/xrpc/com.atproto.repo.createRecord`,
              {
                repo: session.did,
                collection: 'app.bsky.feed.post',
                record: { $type: 'app.bsky.feed.post', text: `bench ${i}`, createdAt: new Date().toISOString() },
              },
              session.accessJwt,
            );
            bluesky.setCounts(created.uri, counts(i));
            entry.uris.push(created.uri);
          });
        }
      }
      await runWithLimit(jobs, 32, (job) => job());
      seeded.ms = Date.now() - started;
      process.send!(seeded);
    })().catch((err: Error) => {
      console.error(err);
      process.exit(1);
    });
  });
  process.send!({ type: 'ready', mastodon: mastodon.baseUrl, bluesky: bluesky.baseUrl });
}

// ---------------------------------------------------------------------------------------------------
// Parent process: the service and the measurement.
// ---------------------------------------------------------------------------------------------------

function waitForMessage<T extends { type: string }>(child: ChildProcess, type: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const onMessage = (msg: T) => {
      if (msg.type !== type) return;
      child.off('message', onMessage);
      child.off('exit', onExit);
      resolve(msg);
    };
    const onExit = (code: number | null) => reject(new Error(`the fakes process exited (${code})`));
    child.on('message', onMessage);
    child.once('exit', onExit);
  });
}

/** Posts with one Mastodon and one Bluesky target each, published in the last 12 hours. */
async function insertPublishedPosts(
  ds: DataSource,
  workspaceId: string,
  seeded: Seeded,
  channelByToken: Map<string, string>,
  channelByIdentifier: Map<string, string>,
): Promise<number> {
  const rows: Array<{ masto: string; status: { id: string; url: string }; bsky: string; uri: string }> = [];
  seeded.mastodon.forEach((m, a) => {
    const b = seeded.bluesky[a];
    m.statuses.forEach((status, i) =>
      rows.push({
        masto: channelByToken.get(m.token)!,
        status,
        bsky: channelByIdentifier.get(b.identifier)!,
        uri: b.uris[i],
      }),
    );
  });
  const CHUNK = 1000;
  for (let i = 0; i < rows.length; i += CHUNK) {
    const chunk = rows.slice(i, i + CHUNK);
    await ds.query(
      `WITH input AS (
         SELECT * FROM unnest($2::uuid[], $3::uuid[], $4::text[], $5::text[], $6::uuid[], $7::text[], $8::int[])
           AS u(post_id, masto, status_id, status_url, bsky, uri, minutes)
       ), posts_in AS (
         INSERT INTO posts (id, workspace_id, content, status, timeline_at, published_at, publication)
         SELECT post_id, $1, 'bench post', 'published', now() - make_interval(mins => minutes),
                now() - make_interval(mins => minutes), 1
           FROM input
       )
       INSERT INTO post_targets
              (post_id, channel_id, position, status, publication, attempts, platform_post_id, url, published_at)
       SELECT post_id, masto, 0, 'published', 1, 1, status_id, status_url, now() - make_interval(mins => minutes)
         FROM input
       UNION ALL
       SELECT post_id, bsky, 1, 'published', 1, 1, uri, 'https://bsky.app/', now() - make_interval(mins => minutes)
         FROM input`,
      [
        workspaceId,
        chunk.map(() => randomUUID()),
        chunk.map((r) => r.masto),
        chunk.map((r) => r.status.id),
        chunk.map((r) => r.status.url),
        chunk.map((r) => r.bsky),
        chunk.map((r) => r.uri),
        chunk.map((_, j) => (i + j) % 720),
      ],
    );
  }
  return rows.length;
}

function summary(stats: CollectionStats) {
  const seconds = stats.durationMs / 1000;
  return {
    ...stats,
    targetsPerSec: Number((stats.read / seconds).toFixed(1)),
    withinTarget: seconds <= TARGET_SECONDS,
  };
}

async function main(): Promise<number> {
  const targets = intEnv('BENCH_TARGETS', 10_000, 2);
  const accounts = intEnv('BENCH_ACCOUNTS', 10);
  const perAccount = Math.ceil(targets / 2 / accounts);
  const watch = MachineWatch.start();
  const loadAtStart = watch.loadAverageAtStart;
  Object.assign(process.env, {
    ...benchAppEnv(BENCH_DB, REDIS_PREFIX),
    APP_ROLE: 'all',
    ANALYTICS_INTERVAL_SECONDS: '3600', // runs are started by the bench, not the timer
  });
  Logger.overrideLogger(['fatal', 'error', 'warn']);

  const child = fork(__filename, ['fakes'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  let app: NestFastifyApplication | undefined;
  try {
    const ready = await waitForMessage<{ type: 'ready'; mastodon: string; bluesky: string }>(child, 'ready');
    await dropDatabase(BENCH_DB);
    await deleteRedisKeys(REDIS_PREFIX);
    await prepareDatabase(databaseConfig().url, true);
    app = await createHttpApp('all');
    await app.listen({ port: 0, host: '127.0.0.1' });
    const address = app.getHttpServer().address();
    if (!address || typeof address === 'string') throw new Error('no address');
    const base = `http://127.0.0.1:${address.port}`;
    const keys = app.get(ApiKeysService);
    const workspace = await keys.resolveWorkspace('bench', true);
    const { key } = await keys.create(workspace.id, {
      name: 'bench',
      rateLimitPerMinute: 1_000_000,
      rateLimitBurst: 1_000_000,
    });
    const connect = async (provider: string, credentials: Record<string, string>): Promise<string> => {
      const res = await fetch(`${base}/api/channels`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: JSON.stringify({ provider, credentials }),
      });
      const body = (await res.json()) as { id: string };
      if (res.status !== 201) throw new Error(`connect ${provider} answered ${res.status}: ${JSON.stringify(body)}`);
      return body.id;
    };
    const channelByToken = new Map<string, string>();
    const channelByIdentifier = new Map<string, string>();
    for (let i = 0; i < accounts; i++) {
      const token = `bench-tok-${i}`;
      const identifier = `bench${i}.test`;
      channelByToken.set(token, await connect('mastodon', { instanceUrl: ready.mastodon, accessToken: token }));
      channelByIdentifier.set(
        identifier,
        await connect('bluesky', { identifier, appPassword: 'pw', serviceUrl: ready.bluesky }),
      );
    }

    const collect = app.get(AnalyticsCollectJob);
    await collect.runNow(); // the start-up run, on no posts
    child.send({ type: 'seed', perAccount } satisfies SeedRequest);
    const seeded = await waitForMessage<Seeded>(child, 'seeded');
    const ds = app.get(DataSource);
    const posts = await insertPublishedPosts(ds, workspace.id, seeded, channelByToken, channelByIdentifier);
    const cfg = analyticsConfig();
    console.log(
      `bench:analytics  ${posts * 2} published targets (${posts} posts x Mastodon + Bluesky) on ${accounts * 2} ` +
        `channels; seeded the fakes in ${seeded.ms} ms; batch ${cfg.batchSize} posts, concurrency ${cfg.concurrency}, ` +
        `node ${process.version}, ${cpus().length} CPUs, load average ${loadAtStart}`,
    );

    const cpu1 = process.cpuUsage();
    const first = await collect.runNow();
    const cpuFirst = process.cpuUsage(cpu1);
    if (!first) throw new Error('the run did not take the lock');
    const [check] = await ds.query(
      `SELECT (SELECT count(*)::int FROM target_metrics WHERE collected_at IS NOT NULL) AS collected,
              (SELECT count(*)::int FROM analytics_snapshots) AS snapshots,
              (SELECT count(*)::int FROM events WHERE type = 'analytics.updated') AS events,
              (SELECT count(*)::int FROM channels WHERE status = 'active') AS active_channels`,
    );
    console.log(
      `  run 1 (all changed):   ${first.read} targets read in ${first.durationMs} ms = ` +
        `${(first.read / (first.durationMs / 1000)).toFixed(0)} targets/s; ${first.snapshots} snapshots, ` +
        `${first.events} events, ${first.retry} left due; process CPU ${((cpuFirst.user + cpuFirst.system) / 1000).toFixed(0)} ms`,
    );

    await ds.query('UPDATE target_metrics SET next_collect_at = now()');
    const cpu2 = process.cpuUsage();
    const second = await collect.runNow();
    const cpuSecond = process.cpuUsage(cpu2);
    if (!second) throw new Error('the run did not take the lock');
    console.log(
      `  run 2 (none changed):  ${second.read} targets read in ${second.durationMs} ms = ` +
        `${(second.read / (second.durationMs / 1000)).toFixed(0)} targets/s; ${second.snapshots} snapshots, ` +
        `${second.events} events; process CPU ${((cpuSecond.user + cpuSecond.system) / 1000).toFixed(0)} ms`,
    );

    const problems: string[] = [];
    if (check.collected !== posts * 2) problems.push(`${check.collected} targets collected, expected ${posts * 2}`);
    if (check.snapshots !== posts * 2) problems.push(`${check.snapshots} snapshots, expected ${posts * 2}`);
    if (check.events !== posts) problems.push(`${check.events} analytics.updated events, expected ${posts}`);
    if (check.active_channels !== accounts * 2) problems.push('a channel was disconnected');
    if (second.snapshots !== 0 || second.events !== 0) problems.push('the unchanged run stored snapshots or events');
    const within = first.durationMs / 1000 <= TARGET_SECONDS;
    console.log(
      within
        ? `  a full collection of ${posts * 2} targets completes within ${TARGET_SECONDS} s: yes`
        : `  WARNING: a full collection of ${posts * 2} targets took more than ${TARGET_SECONDS} s`,
    );
    const recorded = recordResult(
      RESULTS_FILE,
      {
        bench: 'analytics',
        date: new Date().toISOString(),
        node: process.version,
        cpus: cpus().length,
        config: {
          targets: posts * 2,
          posts,
          channels: accounts * 2,
          batchSize: cfg.batchSize,
          concurrency: cfg.concurrency,
          fakes: 'child process, HTTP on 127.0.0.1',
        },
        firstRunAllChanged: { ...summary(first), processCpuMs: Math.round((cpuFirst.user + cpuFirst.system) / 1000) },
        secondRunUnchanged: {
          ...summary(second),
          processCpuMs: Math.round((cpuSecond.user + cpuSecond.system) / 1000),
        },
        database: check,
        targetSeconds: TARGET_SECONDS,
        fullCollectionWithinTarget: within,
        problems,
      },
      watch.finish(),
    );
    if (problems.length) {
      console.error(`bench errors:\n  ${problems.join('\n  ')}`);
      return 1;
    }
    return recorded;
  } finally {
    await app?.close();
    child.send({ type: 'stop' });
    await dropDatabase(BENCH_DB).catch(() => undefined);
    await deleteRedisKeys(REDIS_PREFIX).catch(() => undefined);
  }
}

if (process.argv[2] === 'fakes') {
  fakesMain().catch((err: Error) => {
    console.error(err);
    process.exit(1);
  });
} else {
  main().then(
    (code) => process.exit(code),
    (err: Error) => {
      console.error(err);
      process.exit(1);
    },
  );
}
