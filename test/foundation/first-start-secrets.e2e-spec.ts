import { ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { SecretBox } from '../../src/common/crypto/secret-box';
import { compiledService, freePort } from '../support/service-process';
import { TestEnvironment } from '../support/test-environment';
import { waitFor } from '../support/publishing-env';

const run = promisify(execFile);

/** Nothing the spec's own environment says about keys reaches the processes: they start as on a fresh clone. */
const KEY_VARIABLES = ['APP_ENCRYPTION_KEY', 'MEDIA_URL_SIGNING_KEYS', 'APP_SECRETS_FILE'];

interface LogRecord {
  level: string;
  msg: string;
  context?: string;
  path?: string;
}

/** One process of the compiled service in `cwd`, its JSON log lines kept. */
class Started {
  readonly lines: string[] = [];
  readonly exited: Promise<number | null>;
  constructor(readonly child: ChildProcess) {
    const keep = (chunk: Buffer) => this.lines.push(...chunk.toString().split('\n').filter(Boolean));
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    this.exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  }

  get records(): LogRecord[] {
    return this.lines.flatMap((l) => {
      try {
        return [JSON.parse(l) as LogRecord];
      } catch {
        return [];
      }
    });
  }

  async stop(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGTERM');
    await this.exited;
  }
}

/**
 * A first start without APP_ENCRYPTION_KEY and MEDIA_URL_SIGNING_KEYS (outside production) generates
 * random keys into ./data/secrets.env (0600), says so in the log (the path, never a key) and reads the
 * file on later starts, from the server and from the CLI alike. A database used with the former all-zero
 * development key stays readable. Known keys are refused in every mode.
 */
describe('secrets on a first start', () => {
  const env = new TestEnvironment();
  const root = mkdtempSync(join(tmpdir(), 'sps-first-start-'));
  let build: string;
  const started: Started[] = [];

  const childEnv = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => {
    const vars: NodeJS.ProcessEnv = { ...process.env };
    for (const name of KEY_VARIABLES) delete vars[name];
    return {
      ...vars,
      NODE_ENV: 'development',
      LOG_FORMAT: 'json',
      LOG_LEVEL: 'info',
      HOST: '127.0.0.1',
      BOOTSTRAP_KEY: 'false',
      CONSOLE_SETUP_LINK: 'false',
      ...extra,
    };
  };

  const start = async (cwd: string, role: 'all' | 'api' | 'worker', extra: Record<string, string> = {}) => {
    const port = role === 'worker' ? 0 : await freePort();
    const heartbeat = join(cwd, `heartbeat-${started.length}`);
    const p = new Started(
      spawn(process.execPath, [join(build, 'src', 'main.js')], {
        cwd,
        env: childEnv({
          APP_ROLE: role,
          PORT: String(port),
          WORKER_HEARTBEAT_FILE: heartbeat,
          WORKER_HEARTBEAT_SECONDS: '1',
          ...extra,
        }),
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    );
    started.push(p);
    const base = `http://127.0.0.1:${port}`;
    await waitFor(
      async () => {
        if (p.child.exitCode !== null) throw new Error(`exited during start-up:\n${p.lines.join('\n')}`);
        if (role === 'worker') return existsSync(heartbeat);
        return fetch(`${base}/api/health/ready`).then(
          (r) => r.status === 200,
          () => false,
        );
      },
      (ok) => ok,
      60_000,
    );
    return { p, base };
  };

  const cli = (cwd: string, args: string[], extra: Record<string, string> = {}) =>
    run(process.execPath, [join(build, 'src', 'cli.js'), ...args], { cwd, env: childEnv(extra) });

  const api = async (base: string, key: string, method: string, path: string, body?: unknown) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { 'x-api-key': key, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: res.status, body: (await res.json().catch(() => undefined)) as any };
  };

  /** A sandbox channel and a post published to it now: the worker must open the channel's sealed credentials. */
  const publishes = async (base: string, key: string, channelId: string) => {
    const post = await api(base, key, 'POST', '/api/posts', {
      content: 'sealed and opened',
      channelIds: [channelId],
      publishNow: true,
    });
    expect(post.status).toBe(201);
    const done = await waitFor(
      async () => (await api(base, key, 'GET', `/api/posts/${post.body.id}`)).body,
      (p) => p.status === 'published' || p.status === 'failed',
      30_000,
    );
    return done.status as string;
  };

  const fileValues = (path: string) =>
    Object.fromEntries(
      readFileSync(path, 'utf8')
        .split('\n')
        .filter((l) => /^[A-Z_]+=/.test(l))
        .map((l) => l.split('=') as [string, string]),
    );

  beforeAll(async () => {
    build = compiledService();
    await env.create();
  }, 180_000);
  afterAll(async () => {
    await Promise.all(started.map((p) => p.stop()));
    await env.destroy();
    rmSync(root, { recursive: true, force: true });
  });

  it('an API and a worker started together generate one pair of keys into ./data/secrets.env, say where, and use them', async () => {
    const cwd = join(root, 'server');
    mkdirSync(cwd);
    const [a, w] = await Promise.all([start(cwd, 'api'), start(cwd, 'worker')]);
    const file = join(cwd, 'data', 'secrets.env');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const values = fileValues(file);
    expect(values.APP_ENCRYPTION_KEY).toMatch(/^[0-9a-f]{64}$/);
    expect(values.MEDIA_URL_SIGNING_KEYS).toMatch(/^[0-9a-f]{64}$/);

    // One of the two wrote the file and warned, naming the path; the other read it. No key is in any log.
    const notes = [...a.p.records, ...w.p.records].filter((r) => r.context === 'Secrets');
    expect(notes.filter((r) => r.level === 'warn' && r.path === file)).toHaveLength(1);
    expect(notes.find((r) => r.level === 'warn')!.msg).toMatch(/generated random keys into .*secrets\.env/);
    expect(notes.filter((r) => r.level === 'info' && r.msg.startsWith('Using '))).toHaveLength(1);
    for (const line of [...a.p.lines, ...w.p.lines]) {
      expect(line).not.toContain(values.APP_ENCRYPTION_KEY);
      expect(line).not.toContain(values.MEDIA_URL_SIGNING_KEYS);
    }

    // Credentials sealed by the API with the generated key are opened by the worker to publish.
    const { stdout } = await cli(cwd, ['keys:create', '--workspace', 'first-start']);
    const key = JSON.parse(stdout).key as string;
    const channel = await api(a.base, key, 'POST', '/api/channels', {
      provider: 'sandbox',
      credentials: { name: 'first start' },
    });
    expect(channel.status).toBe(201);
    const [row] = (await queryDb(env, 'SELECT workspace_id, credentials FROM channels WHERE id = $1', [
      channel.body.id,
    ])) as Array<{ workspace_id: string; credentials: string }>;
    const box = new SecretBox(Buffer.from(values.APP_ENCRYPTION_KEY, 'hex'));
    expect(box.openJson(row.credentials, `channel:${row.workspace_id}:${channel.body.id}`)).toEqual(
      expect.objectContaining({ name: 'first start' }),
    );
    expect(await publishes(a.base, key, channel.body.id)).toBe('published');

    // A later start reads the same file: same keys, no new warning, credentials still open.
    await Promise.all([a.p.stop(), w.p.stop()]);
    const again = await start(cwd, 'all');
    expect(fileValues(file)).toEqual(values);
    const later = again.p.records.filter((r) => r.context === 'Secrets');
    expect(later).toEqual([expect.objectContaining({ level: 'info', path: file })]);
    expect(await publishes(again.base, key, channel.body.id)).toBe('published');
    await again.p.stop();
  }, 180_000);

  it('the CLI on a fresh clone generates the file too, says so on stderr, and the server then reads it', async () => {
    const cwd = join(root, 'cli-first');
    mkdirSync(cwd);
    const { stdout, stderr } = await cli(cwd, ['keys:create', '--workspace', 'cli-first']);
    expect(JSON.parse(stdout).key).toMatch(/^spk_/);
    const file = join(cwd, 'data', 'secrets.env');
    const warning = stderr
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as LogRecord)
      .find((r) => r.context === 'Secrets');
    expect(warning).toEqual(expect.objectContaining({ level: 'warn', path: file }));
    expect(stderr).not.toContain(fileValues(file).APP_ENCRYPTION_KEY);
    const server = await start(cwd, 'api');
    expect(server.p.records.filter((r) => r.context === 'Secrets')).toEqual([
      expect.objectContaining({ level: 'info', path: file }),
    ]);
    await server.p.stop();
  }, 120_000);

  it('keeps opening what the former all-zero development key sealed, and says so', async () => {
    const cwd = join(root, 'legacy');
    mkdirSync(cwd);
    const s = await start(cwd, 'all');
    const { stdout } = await cli(cwd, ['keys:create', '--workspace', 'legacy']);
    const key = JSON.parse(stdout).key as string;
    const channel = await api(s.base, key, 'POST', '/api/channels', {
      provider: 'sandbox',
      credentials: { name: 'from before' },
    });
    expect(channel.status).toBe(201);
    // As a development database sealed it before keys were generated: the same credentials, under the zero key.
    const [row] = (await queryDb(env, 'SELECT workspace_id, credentials FROM channels WHERE id = $1', [
      channel.body.id,
    ])) as Array<{ workspace_id: string; credentials: string }>;
    const aad = `channel:${row.workspace_id}:${channel.body.id}`;
    const current = new SecretBox(Buffer.from(fileValues(join(cwd, 'data', 'secrets.env')).APP_ENCRYPTION_KEY, 'hex'));
    const legacy = new SecretBox(Buffer.alloc(32)).seal(current.open(row.credentials, aad), aad);
    await queryDb(env, 'UPDATE channels SET credentials = $2 WHERE id = $1', [channel.body.id, legacy]);
    await s.p.stop();

    const restarted = await start(cwd, 'all');
    expect(await publishes(restarted.base, key, channel.body.id)).toBe('published');
    expect(restarted.p.records).toContainEqual(
      expect.objectContaining({
        level: 'warn',
        context: 'Secrets',
        msg: expect.stringMatching(/all-zero development key/),
      }),
    );
    await restarted.p.stop();
  }, 120_000);

  it('refuses known keys in every mode, and production without keys, naming the variable', async () => {
    const cwd = join(root, 'refusals');
    mkdirSync(cwd);
    const refused = async (extra: Record<string, string>) => {
      const err = await cli(cwd, ['keys:list', '--workspace', 'x'], extra).then(
        () => null,
        (e: { stderr: string }) => e,
      );
      expect(err).not.toBeNull();
      return err!.stderr;
    };
    // The five refusals do not depend on each other: their processes start side by side.
    const cases: Array<[Record<string, string>, RegExp]> = [];
    for (const mode of ['development', 'production']) {
      cases.push([
        { NODE_ENV: mode, APP_ENCRYPTION_KEY: '0'.repeat(64) },
        /APP_ENCRYPTION_KEY is all zeros, a publicly known key/,
      ]);
      cases.push([
        {
          NODE_ENV: mode,
          APP_ENCRYPTION_KEY: 'ab'.repeat(32),
          MEDIA_URL_SIGNING_KEYS: 'development-only-media-url-signing-key-not-secret',
        },
        /MEDIA_URL_SIGNING_KEYS holds the former development key/,
      ]);
    }
    cases.push([{ NODE_ENV: 'production' }, /APP_ENCRYPTION_KEY is required when NODE_ENV=production/]);
    const stderrs = await Promise.all(cases.map(([extra]) => refused(extra)));
    cases.forEach(([, message], i) => expect(stderrs[i]).toMatch(message));
    expect(existsSync(join(cwd, 'data'))).toBe(false); // production generates nothing
  }, 60_000);
});

async function queryDb(env: TestEnvironment, sql: string, params: unknown[]): Promise<unknown[]> {
  const { Client } = await import('pg');
  const client = new Client({ connectionString: env.databaseUrl });
  await client.connect();
  try {
    return (await client.query(sql, params)).rows;
  } finally {
    await client.end();
  }
}
