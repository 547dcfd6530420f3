import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { compiledEntry } from '../support/service-process';

const ROOT = join(__dirname, '..', '..');

interface ComposeService {
  image?: string;
  profiles?: string[] | { reset: true };
  deploy?: { replicas?: number };
  command?: string[] | string;
  extra_hosts?: string[];
  configs?: Array<{ source: string; target: string }>;
  build?: string | { context: string };
  restart?: string;
  environment?: Record<string, string>;
  volumes?: string[];
  ports?: string[];
  healthcheck?: { test: string[] };
  depends_on?: Record<string, { condition: string }>;
  pull_policy?: string;
}

/** Compose's `!reset` (docker-compose.scaled.yml empties lists of the base file with it). */
const RESET = { reset: true } as const;
const composeTags = [{ tag: '!reset', collection: 'seq' as const, resolve: () => RESET }];

/**
 * Compose's variable interpolation (compose-spec "Interpolation"): `$$` is a literal `$`;
 * `${VAR}`/`$VAR`, `${VAR:-default}`/`${VAR-default}`, `${VAR:?error}`/`${VAR?error}` (refuse to load),
 * `${VAR:+alt}`/`${VAR+alt}`. Compose applies it to the whole file before it looks at which services a
 * command names, so one required variable anywhere stops every command.
 */
function interpolate(text: string, env: Record<string, string>): string {
  return text.replace(
    /\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?)([-?+])((?:[^}])*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)/g,
    (match, name?: string, colon?: string, op?: string, arg?: string, bare?: string) => {
      if (match === '$$') return '$';
      if (bare) return env[bare] ?? '';
      const value = env[name!];
      const missing = colon ? !value : value === undefined;
      if (op === '-') return missing ? arg! : value;
      if (op === '?') {
        if (missing) throw new Error(`required variable ${name} is missing a value: ${arg}`);
        return value;
      }
      if (op === '+') return missing ? '' : arg!;
      return value ?? '';
    },
  );
}

function interpolateModel(node: unknown, env: Record<string, string>): unknown {
  if (typeof node === 'string') return interpolate(node, env);
  if (Array.isArray(node)) return node.map((n) => interpolateModel(n, env));
  if (node && typeof node === 'object' && node !== RESET) {
    return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, interpolateModel(v, env)]));
  }
  return node;
}

/** A compose file as Compose loads it for a command run with `env` and no .env file. */
function loadComposeFile(
  file: string,
  env: Record<string, string>,
): { services?: Record<string, ComposeService>; error?: string } {
  const raw = parse(readFileSync(join(ROOT, file), 'utf8'), { merge: true, customTags: composeTags });
  try {
    return interpolateModel(raw, env) as { services: Record<string, ComposeService> };
  } catch (err) {
    return { error: (err as Error).message };
  }
}

interface ReadmeComposeCommand {
  line: string;
  env: Record<string, string>;
  files: string[];
  services: string[];
}

/** Every `docker compose ...` the README shows, in code blocks or inline, as a fresh shell would run it. */
function readmeComposeCommands(readme: string): ReadmeComposeCommand[] {
  const blocks = [...readme.matchAll(/```bash\n([\s\S]*?)```/g)].flatMap((m) => m[1].split('\n'));
  const prose = readme.replace(/```[\s\S]*?```/g, '');
  const inline = [...prose.matchAll(/`([^`]+)`/g)].map((m) => m[1].replace(/\s+/g, ' '));
  const found = new Map<string, ReadmeComposeCommand>();
  for (const text of [...blocks, ...inline]) {
    const line = text
      .replace(/\s+#.*$/, '')
      .split('|')[0]
      .trim();
    const words = line.split(/\s+/);
    const at = words.findIndex((w, i) => w === 'docker' && words[i + 1] === 'compose');
    if (at < 0 || words.slice(0, at).some((w) => !/^[A-Z_][A-Z0-9_]*=\S*$/.test(w))) continue;
    const env = Object.fromEntries(words.slice(0, at).map((w) => w.split('=') as [string, string]));
    const rest = words.slice(at + 2);
    const files: string[] = [];
    while (rest[0] === '-f' || rest[0] === '--profile') {
      const [option, value] = rest.splice(0, 2);
      if (option === '-f') files.push(value);
    }
    const [subcommand, ...args] = rest;
    const operands = args.filter((a, i) => !a.startsWith('-') && !['--scale'].includes(args[i - 1]));
    const services = ['up', 'start', 'stop', 'restart'].includes(subcommand)
      ? operands
      : ['logs', 'exec'].includes(subcommand)
        ? operands.slice(0, 1)
        : [];
    found.set(line, { line, env, files: files.length ? files : ['docker-compose.yml'], services });
  }
  return [...found.values()];
}

/** `docker compose` (v2) or Debian's `docker-compose` (v1) when installed; null when neither answers. */
async function composeClient(): Promise<{ bin: string; args: string[]; v1: boolean } | null> {
  const answers = (bin: string, args: string[]) =>
    new Promise<boolean>((resolve) => execFile(bin, args, (err) => resolve(!err)));
  if (await answers('docker', ['compose', 'version'])) return { bin: 'docker', args: ['compose'], v1: false };
  if (await answers('docker-compose', ['version'])) return { bin: 'docker-compose', args: [], v1: true };
  return null;
}

/**
 * No Docker engine runs here, so the compose file and the Dockerfile are checked for what a user
 * relies on: one image for api and worker, a media volume the `node` user can write, restarts,
 * healthchecks, Node 22, and only variables the service knows.
 */
describe('docker-compose.yml and Dockerfile', () => {
  const compose = parse(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
    services: Record<string, ComposeService>;
    volumes: Record<string, unknown>;
  };
  const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
  const { api, worker } = compose.services;
  const knownVariables = new Set(
    readFileSync(join(ROOT, '.env.example'), 'utf8')
      .split('\n')
      .map((l) => /^([A-Z0-9_]+)=/.exec(l)?.[1])
      .filter(Boolean),
  );

  it('builds one image, once, for the api and the worker, each in its role', () => {
    expect(api.build).toBe('.');
    expect(worker.build).toBeUndefined();
    expect(worker.image).toBe(api.image);
    expect(worker.pull_policy).toBe('never');
    expect(api.environment?.APP_ROLE).toBe('api');
    expect(worker.environment?.APP_ROLE).toBe('worker');
    expect(api.ports).toContain('3000:3000');
  });

  it('runs on Node.js 24 LTS as the node user, with the media directory owned by node before the volume mounts', () => {
    const froms = [...dockerfile.matchAll(/^FROM (\S+)/gm)].map((m) => m[1]);
    expect(froms.length).toBeGreaterThan(0);
    for (const image of froms) expect(image).toMatch(/^node:24[-.]/);
    const runtime = dockerfile.slice(dockerfile.lastIndexOf('FROM '));
    const chown = runtime.search(/mkdir -p \/data\/media && chown -R node:node \/data/);
    const user = runtime.search(/^USER node$/m);
    expect(chown).toBeGreaterThan(-1);
    expect(user).toBeGreaterThan(chown);
    for (const s of [api, worker]) {
      expect(s.environment?.MEDIA_DIR).toBe('/data/media');
      expect(s.volumes).toContain('media:/data/media');
    }
    expect(compose.volumes).toHaveProperty('media');
    expect(dockerfile).toMatch(/^CMD \["node", "dist\/src\/main.js"\]$/m);
    expect(existsSync(join(ROOT, 'src', 'main.ts'))).toBe(true);
  });

  it("installs Debian's ffmpeg (ffprobe and ffmpeg for videos) in the runtime image, as root, without package lists", () => {
    const runtime = dockerfile.slice(dockerfile.lastIndexOf('FROM '));
    const install =
      /^RUN apt-get update \\\n\s+&& apt-get install -y --no-install-recommends ffmpeg \\\n\s+&& rm -rf \/var\/lib\/apt\/lists\/\*$/m;
    expect(runtime).toMatch(/^FROM node:24-bookworm/m);
    expect(runtime).toMatch(install);
    expect(runtime.search(install)).toBeLessThan(runtime.search(/^USER node$/m));
  });

  it('restarts every service unless stopped and health-checks all of them', () => {
    for (const [name, s] of Object.entries(compose.services)) {
      expect({ name, restart: s.restart }).toEqual({ name, restart: 'unless-stopped' });
      expect({ name, healthcheck: Boolean(s.healthcheck?.test?.length) }).toEqual({ name, healthcheck: true });
    }
    for (const s of [api, worker]) {
      expect(s.healthcheck?.test).toEqual(['CMD', 'node', 'dist/src/healthcheck.js']);
      expect(s.depends_on?.postgres?.condition).toBe('service_healthy');
      expect(s.depends_on?.redis?.condition).toBe('service_healthy');
    }
    expect(existsSync(join(ROOT, 'src', 'healthcheck.ts'))).toBe(true);
  });

  it('runs api and worker in production mode and sets only variables the service reads', () => {
    expect(api.environment?.NODE_ENV).toBe('production');
    for (const s of [api, worker]) {
      for (const name of Object.keys(s.environment ?? {}))
        expect({ name, known: knownVariables.has(name) }).toEqual({ name, known: true });
    }
  });

  describe('secrets: required when the api or worker starts, never when Compose reads the file', () => {
    // The command as the container gets it: Compose turns `$$` into `$`.
    const command = ((api.command as string[] | undefined) ?? []).map((part) => interpolate(part, {}));
    const [shell, flag, script, name, ...rest] = command;
    const start = (env: Record<string, string>) =>
      new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
        execFile(
          '/bin/sh',
          [flag, script, name, process.execPath, '-e', 'process.stdout.write("started")'],
          { env },
          (err, stdout, stderr) =>
            resolve({ code: err ? Number((err as { code?: number }).code ?? -1) : 0, stdout, stderr }),
        ),
      );

    it('passes the secrets through without requiring them at parse time', () => {
      for (const s of [api, worker]) {
        expect(s.environment?.APP_ENCRYPTION_KEY).toBe('${APP_ENCRYPTION_KEY:-}');
        expect(s.environment?.MEDIA_URL_SIGNING_KEYS).toBe('${MEDIA_URL_SIGNING_KEYS:-}');
        expect(s.command).toEqual(api.command);
      }
      // What runs after the check is the image's own command.
      expect(shell).toBe('sh');
      expect(rest).toEqual(JSON.parse(/^CMD (\[.*\])$/m.exec(dockerfile)![1]));
    });

    it('stops a container without APP_ENCRYPTION_KEY or MEDIA_URL_SIGNING_KEYS, naming the missing one', async () => {
      // Compose passes an unset secret as an empty string (`${VAR:-}`).
      const neither = await start({ APP_ENCRYPTION_KEY: '', MEDIA_URL_SIGNING_KEYS: '' });
      expect(neither.code).not.toBe(0);
      expect(neither.stdout).toBe('');
      expect(neither.stderr).toContain('APP_ENCRYPTION_KEY: is not set');
      expect(neither.stderr).toContain('.env');
      const one = await start({ APP_ENCRYPTION_KEY: 'a'.repeat(64), MEDIA_URL_SIGNING_KEYS: '' });
      expect(one.code).not.toBe(0);
      expect(one.stderr).toContain('MEDIA_URL_SIGNING_KEYS: is not set');
      expect(one.stdout).toBe('');
    });

    it('starts the service when both are set', async () => {
      const both = await start({ APP_ENCRYPTION_KEY: 'a'.repeat(64), MEDIA_URL_SIGNING_KEYS: 'k'.repeat(64) });
      expect(both).toEqual({ code: 0, stdout: 'started', stderr: '' });
    });
  });

  describe("the README's Compose commands from a fresh shell (no variables, no .env)", () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const commands = readmeComposeCommands(readme);

    it('finds the commands the README shows', () => {
      const lines = commands.map((c) => c.line);
      expect(lines).toEqual(
        expect.arrayContaining([
          'docker compose up -d postgres redis',
          'docker compose up -d --build',
          'docker compose logs api',
          'docker compose -f docker-compose.yml -f docker-compose.scaled.yml up -d --build',
        ]),
      );
    });

    it('loads every file of every command with only the variables the command line sets', async () => {
      for (const c of commands) {
        const services = new Set<string>();
        for (const file of c.files) {
          const model = loadComposeFile(file, c.env);
          expect({ line: c.line, file, error: model.error }).toEqual({ line: c.line, file, error: undefined });
          for (const name of Object.keys(model.services ?? {})) services.add(name);
        }
        for (const service of c.services)
          expect({ line: c.line, service, defined: services.has(service) }).toEqual({
            line: c.line,
            service,
            defined: true,
          });
      }
      // Where a Compose client is installed, Compose itself agrees: `config` in a fresh copy of the
      // files (no .env) with a bare environment, as `env -i` would give.
      const client = await composeClient();
      if (!client) return;
      const dir = mkdtempSync(join(tmpdir(), 'sps-compose-'));
      try {
        for (const file of ['docker-compose.yml', 'docker-compose.scaled.yml'])
          writeFileSync(join(dir, file), readFileSync(join(ROOT, file)));
        for (const c of commands) {
          // Compose v1 predates `!reset`; the scaled file needs Compose 2.24 (README).
          if (client.v1 && c.files.includes('docker-compose.scaled.yml')) continue;
          const args = [...client.args, ...c.files.flatMap((f) => ['-f', f]), 'config', '-q'];
          const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir, ...c.env };
          const result = await new Promise<{ code: number; stderr: string }>((resolve) =>
            execFile(client.bin, args, { cwd: dir, env }, (err, _stdout, stderr) =>
              resolve({ code: err ? Number((err as { code?: number }).code ?? -1) : 0, stderr }),
            ),
          );
          expect({ line: c.line, ...result }).toEqual({ line: c.line, code: 0, stderr: expect.any(String) });
        }
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }, 60_000);

    it('publishes the databases on their usual ports, or on the ports the README names, where npm start then looks', () => {
      const plain = loadComposeFile('docker-compose.yml', {}).services!;
      expect(plain.postgres.ports).toEqual(['127.0.0.1:5432:5432']);
      expect(plain.redis.ports).toEqual(['127.0.0.1:6379:6379']);
      const moved = commands.find((c) => c.env.POSTGRES_HOST_PORT && c.env.REDIS_HOST_PORT);
      expect(moved).toBeDefined();
      const services = loadComposeFile('docker-compose.yml', moved!.env).services!;
      expect(services.postgres.ports).toEqual([`127.0.0.1:${moved!.env.POSTGRES_HOST_PORT}:5432`]);
      expect(services.redis.ports).toEqual([`127.0.0.1:${moved!.env.REDIS_HOST_PORT}:6379`]);
      expect(readme).toContain(`DATABASE_URL=postgres://postgres:postgres@localhost:${moved!.env.POSTGRES_HOST_PORT}/`);
      expect(readme).toContain(`REDIS_URL=redis://localhost:${moved!.env.REDIS_HOST_PORT} npm start`);
      // The api and worker reach the databases inside the Compose network, whatever is published.
      expect(services.api.environment?.DATABASE_URL).toContain('@postgres:5432/');
    });

    it('leaves private outbound addresses refused unless .env allows them', () => {
      expect(loadComposeFile('docker-compose.yml', {}).services!.api.environment?.OUTBOUND_ALLOW_PRIVATE).toBe('');
      expect(
        loadComposeFile('docker-compose.yml', { OUTBOUND_ALLOW_PRIVATE: 'true' }).services!.worker.environment
          ?.OUTBOUND_ALLOW_PRIVATE,
      ).toBe('true');
    });

    it('refuses, as Compose does, a file requiring a variable the command line does not set', () => {
      const required = 'services:\n  api:\n    environment:\n      KEY: ${APP_ENCRYPTION_KEY:?set it}\n';
      expect(() => interpolateModel(parse(required), {})).toThrow(/APP_ENCRYPTION_KEY.*set it/);
    });
  });

  it('offers MinIO as an optional S3-compatible service (profile s3), health-checked, with its own volume', () => {
    const { minio } = compose.services;
    expect(minio.profiles).toEqual(['s3']);
    expect(minio.restart).toBe('unless-stopped');
    expect(minio.healthcheck?.test?.length).toBeGreaterThan(0);
    expect(minio.volumes).toContain('s3data:/data');
    expect(compose.volumes).toHaveProperty('s3data');
  });

  describe('docker-compose.scaled.yml (two APIs behind a load balancer, two workers, media on S3)', () => {
    const scaled = parse(readFileSync(join(ROOT, 'docker-compose.scaled.yml'), 'utf8'), {
      merge: true,
      customTags: composeTags,
    }) as { services: Record<string, ComposeService>; configs: Record<string, { content: string }> };
    const s = scaled.services;
    const haproxy = scaled.configs[s.lb.configs![0].source].content;
    const minioEnv = compose.services.minio.environment!;

    it('runs two API and two worker processes of the one image, the API reachable only through the balancer', () => {
      expect(s.api.deploy?.replicas).toBeGreaterThanOrEqual(2);
      expect(s.worker.deploy?.replicas).toBeGreaterThanOrEqual(2);
      expect(s.api.ports).toBe(RESET); // 3000 of the base file would clash between replicas
      expect(s.lb.ports).toEqual(['3000:3000']);
      expect(s.api.image ?? s.api.build).toBeUndefined(); // the base file's image and build stay
    });

    it('balances over every API process, probing /api/health/ready, and forwards the client address', () => {
      expect(s.lb.configs![0].target).toBe('/usr/local/etc/haproxy/haproxy.cfg');
      expect(haproxy).toMatch(/^\s*bind :3000$/m);
      expect(haproxy).toMatch(/^\s*http-check send meth GET uri \/api\/health\/ready$/m);
      expect(haproxy).toMatch(/^\s*http-check expect status 200$/m);
      expect(haproxy).toMatch(/^\s*server-template api \d+ api:3000 check .*resolvers docker/m);
      expect(haproxy).toMatch(/^\s*option forwardfor$/m);
      expect(s.api.environment?.TRUST_PROXY).toBe('1');
      expect(s.lb.restart).toBe('unless-stopped');
      expect(s.lb.healthcheck?.test?.join(' ')).toContain('/api/health/ready');
    });

    it('stores media in the MinIO bucket it creates, with the credentials MinIO is started with', () => {
      expect(s.minio.profiles).toBe(RESET); // always on here
      const bucketCommand = [s['minio-bucket'].command].flat().join(' ');
      const bucket = /mc mb --ignore-existing local\/(\S+)/.exec(bucketCommand)?.[1];
      expect(bucketCommand).toContain(`${minioEnv.MINIO_ROOT_USER} ${minioEnv.MINIO_ROOT_PASSWORD}`);
      expect(s['minio-bucket'].depends_on?.minio?.condition).toBe('service_healthy');
      for (const service of [s.api, s.worker]) {
        expect(service.environment).toMatchObject({
          MEDIA_STORAGE: 's3',
          S3_ENDPOINT: 'http://minio:9000',
          S3_BUCKET: bucket,
          S3_ACCESS_KEY_ID: minioEnv.MINIO_ROOT_USER,
          S3_SECRET_ACCESS_KEY: minioEnv.MINIO_ROOT_PASSWORD,
          S3_FORCE_PATH_STYLE: 'true',
        });
        expect(service.depends_on?.['minio-bucket']?.condition).toBe('service_completed_successfully');
        for (const name of Object.keys(service.environment ?? {}))
          expect({ name, known: knownVariables.has(name) }).toEqual({ name, known: true });
      }
    });
  });

  describe('the worker healthcheck', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sps-health-'));
    const file = join(dir, 'heartbeat');
    afterAll(() => rmSync(dir, { recursive: true, force: true }));
    const probe = () =>
      new Promise<number>((resolve) =>
        execFile(
          process.execPath,
          compiledEntry('healthcheck'),
          {
            cwd: ROOT,
            env: { ...process.env, APP_ROLE: 'worker', WORKER_HEARTBEAT_FILE: file, WORKER_HEARTBEAT_SECONDS: '10' },
          },
          (err) => resolve(err ? Number((err as { code?: number }).code ?? -1) : 0),
        ),
      );

    it('is healthy with a fresh heartbeat and unhealthy with a stale or missing one', async () => {
      expect(await probe()).toBe(1);
      writeFileSync(file, 'now');
      expect(await probe()).toBe(0);
      const old = new Date(Date.now() - 60_000);
      utimesSync(file, old, old);
      expect(await probe()).toBe(1);
    }, 60_000);
  });
});
