import { ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Redis from 'ioredis';
import { Client } from 'pg';
import { compiledService } from '../support/service-process';
import { CLONE_PREFIX, TEST_PG_BASE, TEST_REDIS_URL, databaseUrl } from '../setup/test-env';

const run = promisify(execFile);

/** Variables the service reads that must come from `.env` in this spec, never from the test's environment. */
const FROM_FILE = [
  'NODE_ENV',
  'PORT',
  'HOST',
  'LOG_LEVEL',
  'LOG_FORMAT',
  'DATABASE_URL',
  'REDIS_URL',
  'REDIS_PREFIX',
  'MIGRATIONS_RUN',
  'BOOTSTRAP_KEY',
  'APP_ROLE',
  'MEDIA_DIR',
  'OUTBOUND_ALLOW_PRIVATE',
];

function cleanEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of FROM_FILE) delete env[name];
  return env;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function waitForHealth(url: string, child: ChildProcess, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the service exited with ${child.exitCode}`);
    try {
      if ((await fetch(url)).status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${url} did not answer within ${timeoutMs} ms`);
}

/**
 * `.env` in the working directory is read before any configuration, by the compiled service
 * (`node dist/src/main.js`, what `npm start` runs) and by the compiled CLI: PORT, LOG_LEVEL and
 * DATABASE_URL from the file take effect (a database that does not exist yet is created and
 * migrated, and the CLI writes to that same database).
 */
describe('.env in the working directory', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sps-env-'));
  let build: string;
  const cwd = join(dir, 'cwd');
  const dbName = `${CLONE_PREFIX}env${randomBytes(4).toString('hex')}`;
  const redisPrefix = `tenv${randomBytes(4).toString('hex')}`;
  let port: number;
  let app: ChildProcess | undefined;
  let stdout = '';

  const writeEnv = (logLevel: string) =>
    writeFileSync(
      join(cwd, '.env'),
      [
        '# written by env-file.e2e-spec',
        `PORT=${port}          # inline comments are allowed`,
        'HOST=127.0.0.1',
        `LOG_LEVEL=${logLevel}`,
        `DATABASE_URL=${databaseUrl(dbName)}`,
        `REDIS_URL=${TEST_REDIS_URL}`,
        `REDIS_PREFIX=${redisPrefix}`,
        'BOOTSTRAP_KEY=true',
        '',
      ].join('\n'),
    );

  const cli = (...args: string[]) =>
    run(process.execPath, [join(build, 'src', 'cli.js'), ...args], { cwd, env: cleanEnv() });

  beforeAll(async () => {
    // The compiled service (what `npm start` runs, transpiled once for every spec), run from a directory of its own.
    build = compiledService();
    port = await freePort();
    mkdirSync(cwd);
    writeEnv('warn');
  }, 180_000);

  afterAll(async () => {
    if (app && app.exitCode === null) {
      app.kill('SIGTERM');
      await new Promise((r) => app!.once('exit', r));
    }
    rmSync(dir, { recursive: true, force: true });
    const admin = new Client({ connectionString: TEST_PG_BASE });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`).finally(() => admin.end());
    const redis = new Redis(TEST_REDIS_URL);
    const keys = await redis.keys(`${redisPrefix}:*`);
    if (keys.length) await redis.del(...keys);
    redis.disconnect();
  });

  it('the service listens on PORT, logs at LOG_LEVEL and creates and migrates DATABASE_URL, all from .env', async () => {
    app = spawn(process.execPath, [join(build, 'src', 'main.js')], {
      cwd,
      env: cleanEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    app.stdout!.on('data', (c: Buffer) => (stdout += c.toString()));
    app.stderr!.resume();
    await waitForHealth(`http://127.0.0.1:${port}/api/health`, app);

    const lines = stdout.trim().split('\n').filter(Boolean);
    const records = lines.map((l) => JSON.parse(l) as { time: string; level: string; msg: string });
    // LOG_LEVEL=warn: the bootstrap key (a warning) is printed, the info lines are not.
    expect(records.map((r) => r.level)).not.toContain('info');
    const bootstrap = records.find((r) => /first API key/.test(r.msg));
    expect(bootstrap).toMatchObject({
      level: 'warn',
      time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });

    const admin = new Client({ connectionString: databaseUrl(dbName) });
    await admin.connect();
    try {
      const migrated = await admin.query('SELECT count(*)::int AS n FROM migrations');
      expect(migrated.rows[0].n).toBeGreaterThan(0);
    } finally {
      await admin.end();
    }
  }, 150_000);

  it('the CLI uses the same .env: its key works on the running service, and LOG_LEVEL=debug shows its logs', async () => {
    const created = await cli('keys:create', '--workspace', 'env-ws', '--name', 'from-cli');
    expect(created.stderr).toBe(''); // LOG_LEVEL=warn: the CLI prints nothing but its JSON
    const { key, id } = JSON.parse(created.stdout) as { key: string; id: string };
    const listed = await fetch(`http://127.0.0.1:${port}/api/api-keys`, { headers: { 'x-api-key': key } });
    expect(listed.status).toBe(200);

    writeEnv('debug');
    const list = await cli('keys:list', '--workspace', 'env-ws');
    expect(JSON.parse(list.stdout).data.map((k: { id: string }) => k.id)).toEqual([id]);
    const logLines = list.stderr.trim().split('\n').filter(Boolean);
    expect(logLines.length).toBeGreaterThan(0);
    for (const line of logLines)
      expect(JSON.parse(line)).toMatchObject({ time: expect.any(String), level: expect.any(String) });
  }, 60_000);
});
