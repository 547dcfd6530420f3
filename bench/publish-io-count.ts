/**
 * Counts the SQL statements and Redis commands our publishing path spends per published target: the
 * figures of docs/adr/0044 (not a benchmark: counts do not depend on how busy the machine is, only on
 * how the batches fall). Same set-up as bench:publish part (a): one workspace, one Mastodon channel on
 * the fake (a child process), BENCH_TARGETS due posts with one target each enqueued at once, published
 * at PUBLISH_CONCURRENCY (BENCH_PUBLISH_CONCURRENCY, default 50); counted from the enqueue until every
 * target is settled and every event of theirs relayed (dispatched_at set).
 *
 *   nest build && node dist/bench/publish-io-count.js            (BENCH_TARGETS=500 by default)
 *
 * Statements are counted on pg's Client.query (BEGIN and COMMIT included) and commands on ioredis'
 * sendCommand (an EVALSHA is one command, as Redis sees it), in the whole process except the count's
 * own watch connection. Prints totals, per target, and the statements by their first words.
 */
import 'reflect-metadata';
import Redis from 'ioredis';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { createHttpApp } from '../src/app.factory';
import { ApiKeysService } from '../src/auth/api-keys.service';
import { ChannelsService } from '../src/channels/channels.service';
import { prepareDatabase } from '../src/database/database-bootstrap';
import { PublishQueue } from '../src/posts/publish.queue';
import { benchAppEnv, databaseUrl, deleteRedisKeys, dropDatabase, intEnv } from './support/bench-env';
import { startMastodonFakeProcess } from './support/fake-process';

const DB = 'sps_count_publish_io';
const PREFIX = 'count-publish-io';
const TARGETS = intEnv('BENCH_TARGETS', 500);
const CONCURRENCY = intEnv('BENCH_PUBLISH_CONCURRENCY', 50);
const ROUNDS = intEnv('BENCH_ROUNDS', 2);
/** BENCH_KEEP_DB=1 keeps the database afterwards (to EXPLAIN the publishing statements on its rows). */
const KEEP_DB = process.env.BENCH_KEEP_DB === '1';

const UNCOUNTED = Symbol('uncounted');
const counts = {
  on: false,
  sql: 0,
  redis: 0,
  byStatement: new Map<string, number>(),
  byCommand: new Map<string, number>(),
};

function statementKey(query: unknown): string {
  const text = typeof query === 'string' ? query : ((query as { text?: string; name?: string })?.text ?? String(query));
  return text.replace(/\s+/g, ' ').trim().slice(0, 90);
}

function patch(): void {
  const query = Client.prototype.query as (...args: unknown[]) => unknown;
  (Client.prototype as unknown as { query: (...args: unknown[]) => unknown }).query = function (
    this: Client & { [UNCOUNTED]?: boolean },
    ...args: unknown[]
  ) {
    if (counts.on && !this[UNCOUNTED]) {
      counts.sql++;
      const key = statementKey(args[0]);
      counts.byStatement.set(key, (counts.byStatement.get(key) ?? 0) + 1);
    }
    return query.apply(this, args);
  };
  const send = Redis.prototype.sendCommand;
  Redis.prototype.sendCommand = function (this: Redis, command: Parameters<typeof send>[0], ...rest: unknown[]) {
    if (counts.on) {
      counts.redis++;
      const name = (command as { name?: string }).name ?? '?';
      counts.byCommand.set(name, (counts.byCommand.get(name) ?? 0) + 1);
    }
    return (send as (...a: unknown[]) => ReturnType<typeof send>).call(this, command, ...rest);
  };
}

async function seedDue(ds: DataSource, workspaceId: string, channelId: string, n: number, label: string) {
  const rows: Array<{ id: string; publication: number; attempts: number; due_at: Date }> = await ds.query(
    `WITH p AS (
       INSERT INTO posts (workspace_id, content, status, scheduled_at, timeline_at, publication, metadata)
       SELECT $1, $3 || ' ' || g, 'scheduled', now(), now(), 1, '{}'::jsonb FROM generate_series(1, $4) g
       RETURNING id)
     INSERT INTO post_targets (post_id, channel_id, position, status, publication, due_at, publication_started_at, attempts)
     SELECT p.id, $2, 0, 'pending', 1, now(), now(), 0 FROM p
     RETURNING id, publication, attempts, due_at`,
    [workspaceId, channelId, label, n],
  );
  return rows.map((r) => ({ id: r.id, publication: r.publication, attempts: r.attempts, dueAt: r.due_at }));
}

async function main(): Promise<void> {
  await dropDatabase(DB);
  await deleteRedisKeys(PREFIX);
  Object.assign(process.env, {
    ...benchAppEnv(DB, PREFIX),
    OUTBOUND_ALLOW_PRIVATE: 'true',
    PUBLISH_CONCURRENCY: String(CONCURRENCY),
    PUBLISH_RECONCILE_SECONDS: '3600',
  });
  await prepareDatabase(databaseUrl(DB), true);
  patch();
  const fake = await startMastodonFakeProcess(['bench-token']);
  const app = await createHttpApp('all');
  await app.init();
  const ds = app.get(DataSource);
  const keys = app.get(ApiKeysService);
  const ws = await keys.resolveWorkspace('count', true);
  const { channel } = await app
    .get(ChannelsService)
    .connect(ws.id, 'mastodon', { instanceUrl: fake.url, accessToken: 'bench-token' });
  const queue = app.get(PublishQueue);
  const watch = new Client({ connectionString: databaseUrl(DB) }) as Client & { [UNCOUNTED]?: boolean };
  watch[UNCOUNTED] = true;
  await watch.connect();

  const runRound = async (label: string) => {
    const due = await seedDue(ds, ws.id, channel.id, TARGETS, label);
    const ids = due.map((t) => t.id);
    counts.on = true;
    await queue.enqueue(due);
    const until = Date.now() + 120_000;
    for (;;) {
      const {
        rows: [row],
      } = await watch.query<{ settled: number; relayed: number; published: number }>(
        `SELECT count(*) FILTER (WHERE t.status IN ('published', 'failed'))::int AS settled,
                count(*) FILTER (WHERE t.status = 'published')::int AS published,
                (SELECT count(*)::int FROM events e WHERE e.dispatched_at IS NOT NULL
                    AND (e.data->>'id')::uuid = ANY (SELECT post_id FROM post_targets WHERE id = ANY($1::uuid[]))) AS relayed
           FROM post_targets t WHERE t.id = ANY($1::uuid[])`,
        [ids],
      );
      if (row.settled === ids.length && row.relayed === ids.length) {
        if (row.published !== ids.length) throw new Error(`${label}: ${row.published}/${ids.length} published`);
        break;
      }
      if (Date.now() > until) throw new Error(`${label}: ${row.settled} settled, ${row.relayed} relayed in time`);
      await new Promise((r) => setTimeout(r, 50));
    }
    // Let the last Bull completions land before the count stops.
    await new Promise((r) => setTimeout(r, 300));
    counts.on = false;
    const {
      rows: [events],
    } = await watch.query<{ n: number; posts: number }>(
      `SELECT count(*)::int AS n, count(DISTINCT data->>'id')::int AS posts FROM events
        WHERE (data->>'id')::uuid = ANY (SELECT post_id FROM post_targets WHERE id = ANY($1::uuid[]))`,
      [ids],
    );
    if (events.n !== ids.length || events.posts !== ids.length) {
      throw new Error(`${label}: ${events.n} events for ${events.posts} of ${ids.length} posts (exactly one each)`);
    }
  };

  await runRound('warm-up');
  counts.sql = 0;
  counts.redis = 0;
  counts.byStatement.clear();
  counts.byCommand.clear();
  for (let i = 0; i < ROUNDS; i++) await runRound(`round${i}`);
  const n = ROUNDS * TARGETS;
  console.log(
    `${n} targets (${ROUNDS} rounds of ${TARGETS}, concurrency ${CONCURRENCY}), each published once with one event: ` +
      `${counts.sql} SQL statements (${(counts.sql / n).toFixed(3)}/target), ` +
      `${counts.redis} Redis commands (${(counts.redis / n).toFixed(3)}/target)`,
  );
  const table = (m: Map<string, number>) =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .map(([k, v]) => `  ${(v / n).toFixed(3).padStart(7)}  ${String(v).padStart(6)}  ${k}`)
      .join('\n');
  console.log(`SQL statements per target, by text:\n${table(counts.byStatement)}`);
  console.log(`Redis commands per target, by name:\n${table(counts.byCommand)}`);

  await watch.end();
  await app.close();
  await fake.stop();
  if (!KEEP_DB) await dropDatabase(DB);
  await deleteRedisKeys(PREFIX);
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
