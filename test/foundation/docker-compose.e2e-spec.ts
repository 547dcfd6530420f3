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

  it('runs on Node 22 as the node user, with the media directory owned by node before the volume mounts', () => {
    const froms = [...dockerfile.matchAll(/^FROM (\S+)/gm)].map((m) => m[1]);
    expect(froms.length).toBeGreaterThan(0);
    for (const image of froms) expect(image).toMatch(/^node:22[-.]/);
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

  it('requires APP_ENCRYPTION_KEY and sets only variables the service reads', () => {
    expect(api.environment?.APP_ENCRYPTION_KEY).toMatch(/^\$\{APP_ENCRYPTION_KEY:\?/);
    expect(api.environment?.NODE_ENV).toBe('production');
    for (const s of [api, worker]) {
      for (const name of Object.keys(s.environment ?? {}))
        expect({ name, known: knownVariables.has(name) }).toEqual({ name, known: true });
    }
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
