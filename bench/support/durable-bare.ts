import { Agent, request as httpRequest } from 'node:http';
import { Pool } from 'pg';

/**
 * "Durable bare" publishing: the least work that still keeps Postgres the truth for every target,
 * written as plainly as possible, for bench:publish to compare our pipeline with. Per target it
 *   1. claims the row (pending -> publishing, attempts + 1),
 *   2. posts the status to the network (the Mastodon fake),
 *   3. records the outcome on the target, settles its post and inserts the post's event (with the
 *      NOTIFY the outbox relay listens to),
 * at the given concurrency, with claims and outcomes batched: claims in one statement per batch of
 * free workers, outcomes in one transaction per batch of finished calls. No queue, no ORM, no
 * framework, no retries, no credentials to open: those are ours to justify. Its events are written
 * already dispatched: it has no relay, and our relay (running in the same process) must not do that
 * work for it inside our own measured rounds.
 */
export async function durableBareLoop(
  pool: Pool,
  fakeUrl: string,
  targetIds: string[],
  concurrency: number,
  agent: Agent,
): Promise<number> {
  const started = Date.now();
  const todo = [...targetIds];
  const outcomes: Array<{ id: string; postId: string; platformId: string; url: string }> = [];
  let flushing: Promise<void> = Promise.resolve();
  let flushTimer: NodeJS.Timeout | null = null;

  const flush = () => {
    if (flushTimer) clearTimeout(flushTimer);
    flushTimer = null;
    const batch = outcomes.splice(0);
    if (batch.length === 0) return flushing;
    flushing = flushing.then(() => recordOutcomes(pool, batch));
    return flushing;
  };

  async function claim(n: number): Promise<Array<{ id: string; postId: string; content: string }>> {
    const ids = todo.splice(0, n);
    if (ids.length === 0) return [];
    const { rows } = await pool.query<{ id: string; post_id: string; content: string }>(
      `WITH t AS (
         UPDATE post_targets SET status = 'publishing', attempts = attempts + 1, updated_at = now()
          WHERE id = ANY($1::uuid[]) AND status = 'pending' RETURNING id, post_id)
       SELECT t.id, t.post_id, p.content FROM t JOIN posts p ON p.id = t.post_id`,
      [ids],
    );
    return rows.map((r) => ({ id: r.id, postId: r.post_id, content: r.content }));
  }

  // Workers take claimed targets from a shared batch; an empty batch claims the next one for all.
  let batch: Array<{ id: string; postId: string; content: string }> = [];
  let claiming: Promise<void> | null = null;
  async function next(): Promise<{ id: string; postId: string; content: string } | undefined> {
    for (;;) {
      const item = batch.shift();
      if (item) return item;
      if (todo.length === 0) return undefined;
      claiming ??= claim(concurrency).then((rows) => {
        batch = rows;
        claiming = null;
      });
      await claiming;
    }
  }

  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let item = await next(); item; item = await next()) {
        const status = await postStatus(fakeUrl, item.content, `durable-${item.id}`, agent);
        outcomes.push({ id: item.id, postId: item.postId, platformId: status.id, url: status.url });
        if (outcomes.length >= concurrency) void flush();
        else flushTimer ??= setTimeout(() => void flush(), 2);
      }
    }),
  );
  await flush();
  return targetIds.length / ((Date.now() - started) / 1000);
}

async function recordOutcomes(
  pool: Pool,
  batch: Array<{ id: string; postId: string; platformId: string; url: string }>,
): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query(
      `WITH o AS (SELECT * FROM unnest($1::uuid[], $2::varchar[], $3::varchar[]) AS o(id, platform_post_id, url)),
       t AS (
         UPDATE post_targets pt SET status = 'published', platform_post_id = o.platform_post_id, url = o.url,
                published_at = now(), updated_at = now()
           FROM o WHERE pt.id = o.id AND pt.status = 'publishing' RETURNING pt.post_id),
       p AS (
         UPDATE posts SET status = 'published', published_at = now(), updated_at = now()
          WHERE id IN (SELECT post_id FROM t) RETURNING id, workspace_id, content, status),
       e AS (
         INSERT INTO events (workspace_id, type, data, dispatched_at)
         SELECT workspace_id, 'post.published', jsonb_build_object('id', id, 'content', content, 'status', status), now()
           FROM p
         RETURNING id)
       SELECT pg_notify('sps_bench_durable_bare', count(*)::text) FROM e`,
      [batch.map((o) => o.id), batch.map((o) => o.platformId), batch.map((o) => o.url)],
    );
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}

function postStatus(base: string, text: string, key: string, agent: Agent): Promise<{ id: string; url: string }> {
  const url = new URL('/api/v1/statuses', base);
  return new Promise((resolve, reject) => {
    const body = JSON.stringify({ status: text, visibility: 'public' });
    const req = httpRequest(
      url,
      {
        method: 'POST',
        agent,
        headers: {
          authorization: 'Bearer bench-token',
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          'idempotency-key': key,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          if (res.statusCode !== 200) return reject(new Error(`durable bare: status ${res.statusCode}`));
          const json = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: string; url: string };
          resolve({ id: json.id, url: json.url });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
