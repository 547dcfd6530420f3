/**
 * The official client against raw fetch doing the same calls, on the same running service.
 *
 *   npm run bench:client          (BENCH_FILE_MIB=256 BENCH_IN_FLIGHT=4 BENCH_POSTS=10000 BENCH_PAGE=100 BENCH_ROUNDS=3)
 *
 * (a) upload: one BENCH_FILE_MIB MiB file (a real MP4 padded with random bytes) through
 *     `sp.media.upload(buffer, { concurrency: BENCH_IN_FLIGHT })` vs raw `fetch` doing the same three
 *     steps: initialize, every chunk as multipart (mediaId, chunkIndex, sha256, chunk) BENCH_IN_FLIGHT
 *     at a time, finalize. Both hash every chunk (SHA-256, WebCrypto) as the client does, so the
 *     service does the same work for both. Ratio = client MB/s / raw MB/s (target >= 0.9).
 * (b) pagination: BENCH_POSTS posts (inserted with SQL) read through `sp.posts.iterate({ limit })`
 *     vs a hand-written loop of `fetch` + `nextCursor`. Ratio = client time / loop time (target <= 1.1).
 *
 * The service (createHttpApp('api') as main.ts builds it, its own database and Redis prefix, a key
 * with limits high enough never to throttle) runs in a child process; this process is only the
 * client, loading the built package (packages/client/dist) like a user does. Rounds alternate ABBA;
 * each side's best round and the medians are reported. Results: bench/results/client.json.
 *
 * Exits 0 when the bench ran, whatever the numbers (targets only print a warning); 1 on errors.
 */
import 'reflect-metadata';
import { webcrypto } from 'node:crypto';
import { ChildProcess, fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchAppEnv, deleteRedisKeys, dropDatabase, intEnv } from './support/bench-env';
import { median } from './support/report';
import { MachineWatch, recordResult } from './support/quiet-machine';
import { makeVideoFile } from './support/video-file';

const MiB = 1024 * 1024;
const TARGET_UPLOAD_RATIO = 0.9;
const TARGET_ITERATE_RATIO = 1.1;
const BENCH_DB = 'sps_bench_client';
const REDIS_PREFIX = 'bench-client';
const ROOT = join(__dirname, '..', '..');
const RESULTS_FILE = join(ROOT, 'bench', 'results', 'client.json');
const CLIENT_DIST = join(ROOT, 'packages', 'client', 'dist', 'index.cjs');

type Side = 'client' | 'raw';

interface ReadyMessage {
  type: 'ready';
  port: number;
  key: string;
}

/** The slice of the client's surface this bench uses (the root program has no DOM types to read its .d.ts). */
interface ClientPackage {
  SocialPublishing: new (options: { apiKey: string; baseUrl: string; maxRetries?: number; timeoutMs?: number }) => {
    media: {
      upload(
        source: Uint8Array,
        options: { filename: string; mimeType: string; concurrency?: number },
      ): Promise<{ id: string; status: string }>;
      delete(id: string): Promise<void>;
    };
    posts: { iterate(query: { limit?: number }): AsyncIterable<{ id: string }> };
  };
}

// ---- child: the service ------------------------------------------------------------------------

async function serve(posts: number): Promise<void> {
  const { Logger } = await import('@nestjs/common');
  Logger.overrideLogger(['fatal', 'error', 'warn']);
  const { DataSource } = await import('typeorm');
  const { createHttpApp } = await import('../src/app.factory');
  const { ApiKeysService } = await import('../src/auth/api-keys.service');
  const app = await createHttpApp('api');
  await app.listen({ port: 0, host: '127.0.0.1' });
  const keys = app.get(ApiKeysService);
  const workspace = await keys.resolveWorkspace('bench-client', true);
  const { key } = await keys.create(workspace.id, {
    name: 'bench',
    rateLimitPerMinute: 100_000_000,
    rateLimitBurst: 100_000_000,
  });
  // Drafts without targets: enough for the list, and inserted in one statement.
  await app.get(DataSource).query(
    `INSERT INTO posts (workspace_id, content, status, timeline_at, created_at, updated_at)
     SELECT $1, 'post ' || i, 'draft', now() - i * interval '1 second', now() - i * interval '1 second', now()
     FROM generate_series(1, $2::int) AS i`,
    [workspace.id, posts],
  );
  process.on('message', (msg: { type?: string }) => {
    if (msg.type === 'stop') void app.close().then(() => process.exit(0));
  });
  const address = app.getHttpServer().address() as { port: number };
  process.send!({ type: 'ready', port: address.port, key } satisfies ReadyMessage);
}

function startService(env: NodeJS.ProcessEnv, posts: number): Promise<{ child: ChildProcess; ready: ReadyMessage }> {
  const child = fork(__filename, ['--serve', String(posts)], { env, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`service exited with code ${code}`)));
    child.once('message', (ready: ReadyMessage) => resolve({ child, ready }));
  });
}

function stopService(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    child.removeAllListeners('exit');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.send({ type: 'stop' });
  });
}

// ---- parent: the two clients -------------------------------------------------------------------

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));
async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = new Uint8Array(await webcrypto.subtle.digest('SHA-256', bytes));
  let hex = '';
  for (const b of digest) hex += HEX[b];
  return hex;
}

async function rawJson(base: string, key: string, method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

/** initialize, chunks `inFlight` at a time (with their SHA-256), finalize: what the client does, by hand. */
async function rawUpload(base: string, key: string, file: Uint8Array, inFlight: number): Promise<string> {
  const media = await rawJson(base, key, 'POST', '/api/media/upload/initialize', {
    filename: 'bench.mp4',
    mimeType: 'video/mp4',
    size: file.length,
  });
  const { id, chunkSize, totalChunks } = media as { id: string; chunkSize: number; totalChunks: number };
  let next = 0;
  const worker = async () => {
    while (next < totalChunks) {
      const index = next++;
      const bytes = file.subarray(index * chunkSize, Math.min(file.length, (index + 1) * chunkSize));
      const form = new FormData();
      form.append('mediaId', id);
      form.append('chunkIndex', String(index));
      form.append('sha256', await sha256Hex(bytes));
      form.append('chunk', new Blob([bytes]));
      const res = await fetch(`${base}/api/media/upload/file`, {
        method: 'POST',
        headers: { 'x-api-key': key },
        body: form,
      });
      const text = await res.text();
      if (res.status !== 200) throw new Error(`chunk ${index}: ${res.status} ${text}`);
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
  const ready = await rawJson(base, key, 'POST', '/api/media/upload/finalize', { mediaId: id });
  if (ready.status !== 'ready') throw new Error(`finalize: ${JSON.stringify(ready)}`);
  return id;
}

/** The hand-written page loop. */
async function rawIterate(base: string, key: string, limit: number): Promise<number> {
  let count = 0;
  let cursor: string | null = null;
  do {
    const qs: string = `limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const page = (await rawJson(base, key, 'GET', `/api/posts?${qs}`)) as {
      data: unknown[];
      nextCursor: string | null;
    };
    count += page.data.length;
    cursor = page.nextCursor;
  } while (cursor);
  return count;
}

/** A real MP4 padded with random bytes (finalize probes it as a video). */
function makeFile(bytes: number): Uint8Array {
  return makeVideoFile(bytes);
}

const seconds = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e9;
const round2 = (n: number) => Math.round(n * 100) / 100;

async function main(): Promise<number> {
  const fileMiB = intEnv('BENCH_FILE_MIB', 256);
  const inFlight = intEnv('BENCH_IN_FLIGHT', 4);
  const posts = intEnv('BENCH_POSTS', 10_000);
  const pageSize = intEnv('BENCH_PAGE', 100);
  const rounds = intEnv('BENCH_ROUNDS', 3);
  const watch = MachineWatch.start();
  const load = watch.loadAverageAtStart;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const pkg = require(CLIENT_DIST) as ClientPackage;
  const mediaDir = mkdtempSync(join(tmpdir(), 'sps-bench-client-'));
  let child: ChildProcess | undefined;
  try {
    await dropDatabase(BENCH_DB);
    await deleteRedisKeys(REDIS_PREFIX);
    const { prepareDatabase } = await import('../src/database/database-bootstrap');
    const env = { ...process.env, ...benchAppEnv(BENCH_DB, REDIS_PREFIX), APP_ROLE: 'api', MEDIA_DIR: mediaDir };
    await prepareDatabase(env.DATABASE_URL, true);
    const started = await startService({ ...env, MIGRATIONS_RUN: 'false' }, posts);
    child = started.child;
    const base = `http://127.0.0.1:${started.ready.port}`;
    const key = started.ready.key;
    const sp = new pkg.SocialPublishing({ apiKey: key, baseUrl: `${base}/api`, timeoutMs: 120_000 });
    console.log(
      `bench:client  (a) ${fileMiB} MiB upload, ${inFlight} chunks in flight; (b) ${posts} posts in pages of ${pageSize}; ` +
        `${rounds} rounds per side (ABBA), node ${process.version}, ${cpus().length} CPUs, load average ${load}`,
    );

    const file = makeFile(fileMiB * MiB);
    const upload = {
      client: async () => {
        const media = await sp.media.upload(file, {
          filename: 'bench.mp4',
          mimeType: 'video/mp4',
          concurrency: inFlight,
        });
        if (media.status !== 'ready') throw new Error(`client upload ended ${media.status}`);
        return media.id;
      },
      raw: () => rawUpload(base, key, file, inFlight),
    };
    const iterate = {
      client: async () => {
        let count = 0;
        for await (const post of sp.posts.iterate({ limit: pageSize })) if (post.id) count++;
        return count;
      },
      raw: () => rawIterate(base, key, pageSize),
    };

    // Warm-up of both paths (JIT, connections, the service's caches).
    const warm = makeFile(Math.min(file.length, 16 * MiB));
    await sp.media.upload(warm, { filename: 'w.mp4', mimeType: 'video/mp4', concurrency: inFlight });
    await rawUpload(base, key, warm, inFlight);
    await iterate.client();
    await iterate.raw();

    const uploadRuns: Array<{ side: Side; round: number; mbPerSec: number }> = [];
    const iterateRuns: Array<{ side: Side; round: number; seconds: number }> = [];
    for (let round = 1; round <= rounds; round++) {
      const order: Side[] = round % 2 === 1 ? ['raw', 'client'] : ['client', 'raw'];
      for (const side of order) {
        const t0 = process.hrtime.bigint();
        const id = await upload[side]();
        const s = seconds(t0);
        await sp.media.delete(id);
        uploadRuns.push({ side, round, mbPerSec: file.length / 1e6 / s });
        console.log(
          `  (a) round ${round} ${side.padEnd(6)}: ${(file.length / 1e6 / s).toFixed(1)} MB/s (${s.toFixed(2)} s)`,
        );
      }
      for (const side of order) {
        const t0 = process.hrtime.bigint();
        const count = await iterate[side]();
        const s = seconds(t0);
        if (count !== posts) throw new Error(`${side} iterated ${count} posts, expected ${posts}`);
        iterateRuns.push({ side, round, seconds: s });
        console.log(`  (b) round ${round} ${side.padEnd(6)}: ${count} posts in ${s.toFixed(2)} s`);
      }
    }

    const mb = (side: Side) => uploadRuns.filter((r) => r.side === side).map((r) => r.mbPerSec);
    const secs = (side: Side) => iterateRuns.filter((r) => r.side === side).map((r) => r.seconds);
    const uploadRatio = Math.max(...mb('client')) / Math.max(...mb('raw'));
    const uploadMedianRatio = median(mb('client')) / median(mb('raw'));
    const iterateRatio = Math.min(...secs('client')) / Math.min(...secs('raw'));
    const iterateMedianRatio = median(secs('client')) / median(secs('raw'));

    console.log('');
    console.log(
      `(a) upload  raw best ${Math.max(...mb('raw')).toFixed(1)} MB/s, client best ${Math.max(...mb('client')).toFixed(1)} MB/s: ` +
        `ratio client/raw ${uploadRatio.toFixed(2)} (median ${uploadMedianRatio.toFixed(2)}; target >= ${TARGET_UPLOAD_RATIO})`,
    );
    console.log(
      `(b) iterate raw best ${Math.min(...secs('raw')).toFixed(2)} s, client best ${Math.min(...secs('client')).toFixed(2)} s: ` +
        `ratio client/raw ${iterateRatio.toFixed(2)} (median ${iterateMedianRatio.toFixed(2)}; target <= ${TARGET_ITERATE_RATIO})`,
    );
    if (uploadRatio < TARGET_UPLOAD_RATIO) console.warn(`WARNING: upload ratio below ${TARGET_UPLOAD_RATIO}`);
    if (iterateRatio > TARGET_ITERATE_RATIO) console.warn(`WARNING: iterate ratio above ${TARGET_ITERATE_RATIO}`);

    const recorded = recordResult(
      RESULTS_FILE,
      {
        bench: 'client',
        date: new Date().toISOString(),
        node: process.version,
        cpus: cpus().length,
        loadAverageAtStart: load,
        config: { fileMiB, inFlight, posts, pageSize, rounds },
        selection: 'best round per side (ABBA order); medians alongside',
        upload: {
          rawBestMbPerSec: round2(Math.max(...mb('raw'))),
          clientBestMbPerSec: round2(Math.max(...mb('client'))),
          ratio: round2(uploadRatio),
          medianRatio: round2(uploadMedianRatio),
          target: `>= ${TARGET_UPLOAD_RATIO}`,
        },
        iterate: {
          rawBestSeconds: round2(Math.min(...secs('raw'))),
          clientBestSeconds: round2(Math.min(...secs('client'))),
          ratio: round2(iterateRatio),
          medianRatio: round2(iterateMedianRatio),
          target: `<= ${TARGET_ITERATE_RATIO}`,
        },
      },
      watch.finish(),
    );
    return recorded;
  } finally {
    if (child) await stopService(child);
    rmSync(mediaDir, { recursive: true, force: true });
    await dropDatabase(BENCH_DB).catch(() => undefined);
    await deleteRedisKeys(REDIS_PREFIX).catch(() => undefined);
  }
}

if (process.argv[2] === '--serve') {
  serve(Number(process.argv[3])).catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
} else {
  main().then(
    (code) => process.exit(code),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}
