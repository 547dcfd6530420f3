/**
 * Chunked upload throughput benchmark: our service vs a bare Fastify server doing the same streaming.
 *
 *   npm run bench:upload          (BENCH_FILE_MIB=256 BENCH_CHUNK_MIB=5 BENCH_IN_FLIGHT=4 BENCH_ROUNDS=5)
 *
 * One file of BENCH_FILE_MIB MiB (a real 2 s MP4 padded with random bytes in a `free` box, so our service
 * probes it as the video/mp4 it is) is sent in BENCH_CHUNK_MIB MiB chunks, BENCH_IN_FLIGHT requests in flight, as
 * multipart/form-data (fields mediaId, chunkIndex, then the file part `chunk`), to:
 *  - ours: createHttpApp('api') exactly as main.ts builds it (API key guard, Redis rate limit, Postgres,
 *    @fastify/multipart streamed into LocalDiskStorage: exact-size check, written at its offset in the
 *    upload's file, marker with the part's CRC-32; parts are neither flushed one by one nor hashed unless
 *    the client sends a chunk sha256), preceded by initialize and followed by finalize (timed apart: it
 *    flushes the file once, hashes it, checks each part's CRC-32 and renames it) and DELETE;
 *  - bare: plain Fastify + @fastify/multipart, the same per-request file size limit, streaming each chunk
 *    with pipeline() into a file, no auth, no database, no hashing, no fsync.
 *
 * Fairness: each server runs in a child process of its own (the parent is only the client), both write
 * under the same temp directory on the same file system, rounds alternate ABBA, and each side's result is
 * its best round (noise on a shared 2-core box only slows a run down); medians are reported too.
 * Memory: each child samples its own RSS every 10 ms; "RSS growth" is the peak minus the RSS after start-up,
 * before the first byte was uploaded. CPU: each child's CPU time (user + system) over the chunk phase, per MiB,
 * is reported too; it is less sensitive than MB/s to other load on the box. Results: bench/results/upload.json.
 *
 * MEDIA_STORAGE=s3 runs ours on the S3 driver: against S3_ENDPOINT (+ S3_BUCKET and credentials) when set,
 * otherwise against a local s3rver (the one the tests use, started here in this process, in a temporary
 * folder); results then go to bench/results/upload-s3.json. The bare side always writes to local disk (the
 * reference stays the same). The RSS growth is that of the service process only (s3rver runs in the parent).
 *
 * A quick check that the bench works: `BENCH_FILE_MIB=16 BENCH_ROUNDS=1` (any size other than 256 MiB prints
 * its figures but leaves bench/results alone).
 *
 * Exits 0 when the bench ran, whatever the numbers (targets below only print a warning); 1 on errors.
 */
import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { ChildProcess, fork } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createWriteStream } from 'node:fs';
import { StartedS3Server, startS3Server, testS3Env } from '../test/setup/s3-server';
import { benchAppEnv, databaseUrl, deleteRedisKeys, dropDatabase, intEnv } from './support/bench-env';
import { median } from './support/report';
import { MachineWatch, recordResult } from './support/quiet-machine';
import { makeVideoFile } from './support/video-file';

const TARGET_RATIO = 0.8; // median of rounds, ours/bare
const TARGET_FINALIZE_S = 0.5; // 256 MiB, local storage
const TARGET_RSS_MIB = 100;
const MiB = 1024 * 1024;
/** The documented file size: only a run of this size writes bench/results (a smaller one only prints). */
const FULL_FILE_MIB = 256;
// Per run, so two runs on one server (a shared machine) never drop each other's database.
const BENCH_DB = `sps_bench_upload_${process.pid}`;
const REDIS_PREFIX = `bench-upload-${process.pid}`;
const ON_S3 = process.env.MEDIA_STORAGE === 's3';
const RESULTS_FILE = join(__dirname, '..', '..', 'bench', 'results', ON_S3 ? 'upload-s3.json' : 'upload.json');

type Side = 'bare' | 'ours';

interface ReadyMessage {
  type: 'ready';
  port: number;
  key?: string;
}
interface MemoryMessage {
  type: 'memory';
  baselineRss: number;
  peakRss: number;
  /** CPU time (user + system) of the server process since it started, in microseconds. */
  cpuMicros: number;
}

// ---- children: the servers ---------------------------------------------------------------------

/** Samples this process's RSS; answers the parent's `memory` question with baseline and peak. */
function trackMemory(): void {
  const baselineRss = process.memoryUsage.rss();
  let peakRss = baselineRss;
  const timer = setInterval(() => {
    peakRss = Math.max(peakRss, process.memoryUsage.rss());
  }, 10);
  timer.unref();
  process.on('message', (msg: { type?: string }) => {
    if (msg.type === 'memory') {
      peakRss = Math.max(peakRss, process.memoryUsage.rss());
      const cpu = process.cpuUsage();
      process.send!({ type: 'memory', baselineRss, peakRss, cpuMicros: cpu.user + cpu.system } satisfies MemoryMessage);
    }
  });
}

async function serveOurs(): Promise<void> {
  const { Logger } = await import('@nestjs/common');
  Logger.overrideLogger(['fatal', 'error', 'warn']);
  const { createHttpApp } = await import('../src/app.factory');
  const { ApiKeysService } = await import('../src/auth/api-keys.service');
  const app = await createHttpApp('api');
  await app.listen({ port: 0, host: '127.0.0.1' });
  const keys = app.get(ApiKeysService);
  const workspace = await keys.resolveWorkspace('bench', true);
  const { key } = await keys.create(workspace.id, {
    name: 'bench',
    rateLimitPerMinute: 100_000_000,
    rateLimitBurst: 100_000_000,
  });
  const address = app.getHttpServer().address() as { port: number };
  process.on('message', (msg: { type?: string }) => {
    if (msg.type === 'stop') void app.close().then(() => process.exit(0));
  });
  trackMemory();
  process.send!({ type: 'ready', port: address.port, key } satisfies ReadyMessage);
}

async function serveBare(dir: string, chunkBytes: number): Promise<void> {
  const { default: fastify } = await import('fastify');
  const { default: multipart } = await import('@fastify/multipart');
  const app = fastify({ logger: false, bodyLimit: 1024 * 1024 });
  await app.register(multipart, { limits: { fields: 8, fieldSize: 256, files: 1, parts: 10 } });
  app.post('/upload', async (req, reply) => {
    const fields: Record<string, string> = {};
    for await (const part of req.parts({ limits: { fileSize: chunkBytes + 1 } })) {
      if (part.type === 'field') {
        fields[part.fieldname] = String(part.value);
        continue;
      }
      const target = join(dir, `${fields.mediaId}.${Number(fields.chunkIndex)}.part`);
      await pipeline(part.file, createWriteStream(target));
      if (part.file.truncated) return reply.code(413).send({ error: 'PAYLOAD_TOO_LARGE' });
    }
    return { id: fields.mediaId, chunkIndex: Number(fields.chunkIndex) };
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  process.on('message', (msg: { type?: string }) => {
    if (msg.type === 'stop') void app.close().then(() => process.exit(0));
  });
  trackMemory();
  process.send!({ type: 'ready', port: (app.server.address() as { port: number }).port } satisfies ReadyMessage);
}

// ---- parent: the client ------------------------------------------------------------------------

class Server {
  private constructor(
    readonly side: Side,
    private readonly child: ChildProcess,
    readonly port: number,
    readonly key: string | undefined,
  ) {}

  static start(side: Side, env: NodeJS.ProcessEnv): Promise<Server> {
    // BENCH_PROFILE=1 writes a V8 CPU profile of each server to the working directory (for digging, not for numbers).
    const execArgv = process.env.BENCH_PROFILE === '1' ? ['--cpu-prof', `--cpu-prof-name=${side}.cpuprofile`] : [];
    const child = fork(__filename, ['--serve', side], {
      env,
      execArgv,
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    return new Promise((resolve, reject) => {
      child.once('error', reject);
      child.once('exit', (code) => reject(new Error(`${side} server exited with code ${code}`)));
      child.once('message', (msg: ReadyMessage) => resolve(new Server(side, child, msg.port, msg.key)));
    });
  }

  memory(): Promise<MemoryMessage> {
    return new Promise((resolve) => {
      const onMessage = (msg: MemoryMessage) => {
        if (msg.type !== 'memory') return;
        this.child.off('message', onMessage);
        resolve(msg);
      };
      this.child.on('message', onMessage);
      this.child.send({ type: 'memory' });
    });
  }

  stop(): Promise<void> {
    return new Promise((resolve) => {
      this.child.removeAllListeners('exit');
      const timer = setTimeout(() => this.child.kill('SIGKILL'), 10_000);
      this.child.once('exit', () => {
        clearTimeout(timer);
        resolve();
      });
      this.child.send({ type: 'stop' });
    });
  }
}

interface HttpResult {
  status: number;
  body: string;
}

function send(
  agent: Agent,
  port: number,
  method: string,
  path: string,
  headers: Record<string, string | number>,
  body: Buffer[],
): Promise<HttpResult> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method, path, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
      res.on('error', reject);
    });
    req.on('error', reject);
    for (const part of body) req.write(part);
    req.end();
  });
}

function json(agent: Agent, port: number, method: string, path: string, key: string, payload?: unknown) {
  const body = payload === undefined ? [] : [Buffer.from(JSON.stringify(payload))];
  const headers: Record<string, string | number> = { 'x-api-key': key };
  if (payload !== undefined) headers['content-type'] = 'application/json';
  return send(agent, port, method, path, headers, body);
}

/** Sends every chunk of `file` as multipart, `inFlight` at a time; returns the seconds it took. */
async function uploadChunks(
  agent: Agent,
  server: Server,
  path: string,
  mediaId: string,
  file: Buffer,
  chunkBytes: number,
  inFlight: number,
): Promise<number> {
  const total = Math.ceil(file.length / chunkBytes);
  const boundary = `----sps-bench-${randomBytes(8).toString('hex')}`;
  const epilogue = Buffer.from(`\r\n--${boundary}--\r\n`);
  const headersFor = (preamble: Buffer, chunk: Buffer): Record<string, string | number> => ({
    ...(server.key ? { 'x-api-key': server.key } : {}),
    'content-type': `multipart/form-data; boundary=${boundary}`,
    'content-length': preamble.length + chunk.length + epilogue.length,
  });
  let next = 0;
  const started = process.hrtime.bigint();
  async function worker(): Promise<void> {
    while (next < total) {
      const index = next++;
      const chunk = file.subarray(index * chunkBytes, (index + 1) * chunkBytes);
      const preamble = Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="mediaId"\r\n\r\n${mediaId}\r\n` +
          `--${boundary}\r\nContent-Disposition: form-data; name="chunkIndex"\r\n\r\n${index}\r\n` +
          `--${boundary}\r\nContent-Disposition: form-data; name="chunk"; filename="chunk.bin"\r\n` +
          'Content-Type: application/octet-stream\r\n\r\n',
      );
      const res = await send(agent, server.port, 'POST', path, headersFor(preamble, chunk), [
        preamble,
        chunk,
        epilogue,
      ]);
      if (res.status !== 200) throw new Error(`${server.side} chunk ${index}: ${res.status} ${res.body}`);
    }
  }
  await Promise.all(Array.from({ length: inFlight }, () => worker()));
  return Number(process.hrtime.bigint() - started) / 1e9;
}

interface RoundResult {
  side: Side;
  round: number;
  seconds: number;
  mbPerSec: number;
  /** CPU time of the server process per MiB uploaded (user + system), less sensitive to other load than MB/s. */
  serverCpuMsPerMiB: number;
  /** ours only: finalize (join + hash + verify) and end to end including it. */
  finalizeSeconds?: number;
  endToEndMbPerSec?: number;
}

async function runOnce(
  agent: Agent,
  server: Server,
  file: Buffer,
  chunkBytes: number,
  inFlight: number,
  bareDir: string,
): Promise<{ seconds: number; cpuMicros: number; finalizeSeconds?: number }> {
  /** Chunk uploads only, with the server's CPU time over exactly that phase. */
  const measured = async (path: string, id: string) => {
    const cpuBefore = (await server.memory()).cpuMicros;
    const seconds = await uploadChunks(agent, server, path, id, file, chunkBytes, inFlight);
    return { seconds, cpuMicros: (await server.memory()).cpuMicros - cpuBefore };
  };
  if (server.side === 'bare') {
    const result = await measured('/upload', randomBytes(8).toString('hex'));
    rmSync(bareDir, { recursive: true, force: true });
    mkdirSync(bareDir, { recursive: true });
    return result;
  }
  const key = server.key!;
  const init = await json(agent, server.port, 'POST', '/api/media/upload/initialize', key, {
    filename: 'bench.mp4',
    mimeType: 'video/mp4',
    size: file.length,
  });
  if (init.status !== 201) throw new Error(`initialize: ${init.status} ${init.body}`);
  const media = JSON.parse(init.body) as { id: string; chunkSize: number };
  if (media.chunkSize !== chunkBytes) throw new Error(`server chose chunkSize ${media.chunkSize}, not ${chunkBytes}`);
  const { seconds, cpuMicros } = await measured('/api/media/upload/file', media.id);
  const t0 = process.hrtime.bigint();
  const fin = await json(agent, server.port, 'POST', '/api/media/upload/finalize', key, { mediaId: media.id });
  const finalizeSeconds = Number(process.hrtime.bigint() - t0) / 1e9;
  if (fin.status !== 200 || (JSON.parse(fin.body) as { status: string }).status !== 'ready') {
    throw new Error(`finalize: ${fin.status} ${fin.body}`);
  }
  const del = await json(agent, server.port, 'DELETE', `/api/media/${media.id}`, key);
  if (del.status !== 204) throw new Error(`delete: ${del.status} ${del.body}`);
  return { seconds, cpuMicros, finalizeSeconds };
}

/** A real MP4 padded with random bytes (finalize probes it as a video). */
function makeFile(bytes: number): Buffer {
  return makeVideoFile(bytes);
}

async function main(): Promise<number> {
  const fileMiB = intEnv('BENCH_FILE_MIB', FULL_FILE_MIB);
  const chunkMiB = intEnv('BENCH_CHUNK_MIB', 5);
  const inFlight = intEnv('BENCH_IN_FLIGHT', 4);
  const rounds = intEnv('BENCH_ROUNDS', 5);
  const chunkBytes = chunkMiB * MiB;
  const watch = MachineWatch.start();
  const loadAtStart = watch.loadAverageAtStart;
  const work = mkdtempSync(join(tmpdir(), 'sps-bench-upload-'));
  const oursDir = join(work, 'ours');
  const bareDir = join(work, 'bare');
  mkdirSync(oursDir);
  mkdirSync(bareDir);
  const dbUrl = databaseUrl(BENCH_DB);

  const servers: Server[] = [];
  let s3Server: StartedS3Server | undefined;
  try {
    let storageEnv: Record<string, string> = {};
    if (ON_S3 && !process.env.S3_ENDPOINT) {
      s3Server = await startS3Server();
      process.env.SPS_TEST_S3_ENDPOINT = s3Server.endpoint;
      storageEnv = testS3Env();
    }
    await dropDatabase(BENCH_DB);
    await deleteRedisKeys(REDIS_PREFIX);
    const { Logger } = await import('@nestjs/common');
    Logger.overrideLogger(['fatal', 'error', 'warn']);
    const { prepareDatabase } = await import('../src/database/database-bootstrap');
    await prepareDatabase(dbUrl, true);

    const env = {
      ...process.env,
      ...benchAppEnv(BENCH_DB, REDIS_PREFIX),
      MIGRATIONS_RUN: 'false',
      APP_ROLE: 'api',
      MEDIA_DIR: oursDir,
      MEDIA_CHUNK_BYTES: String(chunkBytes),
      BENCH_BARE_DIR: bareDir,
      ...storageEnv,
    };
    const ours = await Server.start('ours', env);
    servers.push(ours);
    const bare = await Server.start('bare', env);
    servers.push(bare);
    const bySide: Record<Side, Server> = { ours, bare };

    const file = makeFile(fileMiB * MiB);
    // The warm-up file is a whole video of its own (a slice of `file` would cut its `free` box short,
    // and finalize rightly refuses a truncated MP4).
    const warmup = file.length <= 8 * chunkBytes ? file : makeFile(8 * chunkBytes);
    const agent = new Agent({ keepAlive: true, maxSockets: inFlight });
    console.log(
      `bench:upload  ${fileMiB} MiB in ${chunkMiB} MiB chunks, ${inFlight} in flight, ${rounds} rounds per side (ABBA), ` +
        `node ${process.version}, ${cpus().length} CPUs, load average ${loadAtStart}`,
    );
    for (const side of ['bare', 'ours'] as const)
      await runOnce(agent, bySide[side], warmup, chunkBytes, inFlight, bareDir);

    const runs: RoundResult[] = [];
    for (let round = 1; round <= rounds; round++) {
      const order: Side[] = round % 2 === 1 ? ['bare', 'ours'] : ['ours', 'bare'];
      for (const side of order) {
        const r = await runOnce(agent, bySide[side], file, chunkBytes, inFlight, bareDir);
        const serverCpuMsPerMiB = r.cpuMicros / 1000 / (file.length / MiB);
        const mbPerSec = file.length / 1e6 / r.seconds;
        const result: RoundResult = { side, round, seconds: r.seconds, mbPerSec, serverCpuMsPerMiB };
        if (r.finalizeSeconds !== undefined) {
          result.finalizeSeconds = r.finalizeSeconds;
          result.endToEndMbPerSec = file.length / 1e6 / (r.seconds + r.finalizeSeconds);
        }
        runs.push(result);
        console.log(
          `  round ${round} ${side.padEnd(4)}: ${mbPerSec.toFixed(1)} MB/s (${r.seconds.toFixed(2)} s), ` +
            `server CPU ${serverCpuMsPerMiB.toFixed(2)} ms/MiB` +
            (r.finalizeSeconds !== undefined ? `, finalize ${r.finalizeSeconds.toFixed(2)} s` : ''),
        );
      }
    }
    agent.destroy();

    const bestOf = (side: Side) =>
      runs.filter((r) => r.side === side).reduce((a, b) => (b.mbPerSec > a.mbPerSec ? b : a));
    const medianOf = (side: Side) => median(runs.filter((r) => r.side === side).map((r) => r.mbPerSec));
    const ratio = bestOf('ours').mbPerSec / bestOf('bare').mbPerSec;
    const medianRatio = medianOf('ours') / medianOf('bare');
    const cpuOf = (side: Side) => median(runs.filter((r) => r.side === side).map((r) => r.serverCpuMsPerMiB));
    const memory = { ours: await ours.memory(), bare: await bare.memory() };
    const growthMiB = (m: MemoryMessage) => (m.peakRss - m.baselineRss) / MiB;
    const oursGrowth = growthMiB(memory.ours);
    const finalizeMedian = median(runs.filter((r) => r.side === 'ours').map((r) => r.finalizeSeconds!));

    console.log('');
    console.log(`bare  best ${bestOf('bare').mbPerSec.toFixed(1)} MB/s, median ${medianOf('bare').toFixed(1)} MB/s`);
    console.log(`ours  best ${bestOf('ours').mbPerSec.toFixed(1)} MB/s, median ${medianOf('ours').toFixed(1)} MB/s`);
    console.log(
      `ratio ours/bare: best ${ratio.toFixed(2)}, median ${medianRatio.toFixed(2)} (target: median >= ${TARGET_RATIO})`,
    );
    console.log(
      `server CPU per MiB (median): bare ${cpuOf('bare').toFixed(2)} ms, ours ${cpuOf('ours').toFixed(2)} ms ` +
        `(efficiency bare/ours ${(cpuOf('bare') / cpuOf('ours')).toFixed(2)})`,
    );
    console.log(
      `peak RSS growth: ours ${oursGrowth.toFixed(1)} MiB (baseline ${(memory.ours.baselineRss / MiB).toFixed(0)} MiB), ` +
        `bare ${growthMiB(memory.bare).toFixed(1)} MiB (target ours < ${TARGET_RSS_MIB} MiB)`,
    );

    const results = {
      bench: 'upload',
      storage: ON_S3 ? 's3' : 'local',
      date: new Date().toISOString(),
      node: process.version,
      cpus: cpus().length,
      config: { fileMiB, chunkMiB, inFlight, rounds, unit: 'MB/s = 10^6 bytes per second of chunk uploads' },
      selection: 'best round per side (ABBA order); medians alongside',
      bare: { bestMbPerSec: round1(bestOf('bare').mbPerSec), medianMbPerSec: round1(medianOf('bare')) },
      ours: {
        bestMbPerSec: round1(bestOf('ours').mbPerSec),
        medianMbPerSec: round1(medianOf('ours')),
        finalizeSecondsMedian: Number(finalizeMedian.toFixed(3)),
        endToEndMbPerSecBest: round1(
          Math.max(...runs.filter((r) => r.side === 'ours').map((r) => r.endToEndMbPerSec!)),
        ),
      },
      ratio: Number(ratio.toFixed(4)),
      medianRatio: Number(medianRatio.toFixed(4)),
      serverCpuMsPerMiB: { bare: Number(cpuOf('bare').toFixed(3)), ours: Number(cpuOf('ours').toFixed(3)) },
      rss: {
        oursBaselineMiB: round1(memory.ours.baselineRss / MiB),
        oursPeakMiB: round1(memory.ours.peakRss / MiB),
        oursGrowthMiB: round1(oursGrowth),
        bareGrowthMiB: round1(growthMiB(memory.bare)),
      },
      targets: { medianRatio: TARGET_RATIO, finalizeSeconds: TARGET_FINALIZE_S, rssGrowthMiB: TARGET_RSS_MIB },
      meetsTargets: {
        medianRatio: medianRatio >= TARGET_RATIO,
        finalize: finalizeMedian < TARGET_FINALIZE_S,
        rss: oursGrowth < TARGET_RSS_MIB,
      },
      runs,
    };
    const machine = watch.finish();
    let recorded = 0;
    if (fileMiB === FULL_FILE_MIB) recorded = recordResult(RESULTS_FILE, results, machine);
    else console.log(`results not written to bench/results: ${fileMiB} MiB is not the documented ${FULL_FILE_MIB} MiB`);
    console.log(
      `RATIO upload: ${ratio.toFixed(2)}  RSS growth: ${oursGrowth.toFixed(1)} MiB  (storage ${ON_S3 ? 's3' : 'local'}, ${fileMiB} MiB)`,
    );
    if (medianRatio < TARGET_RATIO) {
      console.warn(`WARNING: median ours/bare ratio ${medianRatio.toFixed(2)} is below ${TARGET_RATIO}`);
    }
    if (finalizeMedian >= TARGET_FINALIZE_S)
      console.warn(`WARNING: finalize ${finalizeMedian.toFixed(2)} s is too slow`);
    if (oursGrowth >= TARGET_RSS_MIB) console.warn(`WARNING: RSS growth ${oursGrowth.toFixed(1)} MiB is too high`);
    return recorded;
  } finally {
    for (const s of servers) await s.stop().catch(() => undefined);
    await s3Server?.stop().catch(() => undefined);
    rmSync(work, { recursive: true, force: true });
    await dropDatabase(BENCH_DB).catch((err: Error) => console.error(`dropping ${BENCH_DB}: ${err.message}`));
    await deleteRedisKeys(REDIS_PREFIX).catch((err: Error) => console.error(`deleting Redis keys: ${err.message}`));
  }
}

function round1(n: number): number {
  return Number(n.toFixed(1));
}

const serveIndex = process.argv.indexOf('--serve');
if (serveIndex >= 0) {
  const side = process.argv[serveIndex + 1] as Side;
  const started =
    side === 'ours'
      ? serveOurs()
      : serveBare(process.env.BENCH_BARE_DIR ?? tmpdir(), Number(process.env.MEDIA_CHUNK_BYTES ?? 5 * MiB));
  started.catch((err: unknown) => {
    console.error(`${side} server failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    process.exit(1);
  });
} else {
  main().then(
    (code) => process.exit(code),
    (err: unknown) => {
      console.error(`bench:upload failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
      process.exit(1);
    },
  );
}
