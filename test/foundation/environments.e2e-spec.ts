import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeDevCertificate } from '../../src/dev-cert';
import { TestApp } from '../support/test-app';

const ENV_VARS = [
  'TLS_CERT_FILE',
  'TLS_KEY_FILE',
  'PRODUCTION_BASE_URL',
  'DEVELOPMENT_BASE_URL',
  'LOCAL_BASE_URL',
  'TRUST_PROXY',
  'AUTH_FAILURES_PER_MINUTE',
];

function resetEnv(): void {
  for (const name of ENV_VARS) delete process.env[name];
}

/** GET over HTTPS trusting only the given certificate (as a client that installed the dev certificate would). */
function getTls(
  url: string,
  ca: Buffer | string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(url, { ca, headers, servername: 'localhost' }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : undefined });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

describe('local HTTPS (TLS_CERT_FILE/TLS_KEY_FILE with the dev:cert certificate)', () => {
  let dir: string;
  let t: TestApp;
  let cert: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sps-cert-'));
    const files = await writeDevCertificate(dir);
    cert = readFileSync(files.certFile, 'utf8');
    t = await TestApp.start({ env: { TLS_CERT_FILE: files.certFile, TLS_KEY_FILE: files.keyFile } });
  });
  afterAll(async () => {
    await t?.close();
    resetEnv();
    rmSync(dir, { recursive: true, force: true });
  });

  it('listens over HTTPS with a certificate valid for localhost and 127.0.0.1', async () => {
    expect(t.baseUrl).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const health = await getTls(`${t.baseUrl}/api/health`, cert);
    expect(health.status).toBe(200);
    expect(health.body).toEqual({ status: 'ok', checks: { database: 'up', redis: 'up', video: 'up' } });
    const byName = await getTls(t.baseUrl.replace('127.0.0.1', 'localhost') + '/api/health', cert);
    expect(byName.status).toBe(200);
  });

  it('answers an authenticated request over HTTPS, and 401 without a key', async () => {
    const { key } = await t.createWorkspace();
    const list = await getTls(`${t.baseUrl}/api/posts`, cert, { 'x-api-key': key });
    expect(list.status).toBe(200);
    expect(Array.isArray(list.body.data)).toBe(true);
    const anonymous = await getTls(`${t.baseUrl}/api/posts`, cert);
    expect(anonymous.status).toBe(401);
  });

  it('refuses a client that does not trust the certificate', async () => {
    await expect(fetch(`${t.baseUrl}/api/health`)).rejects.toThrow();
  });

  it('does not speak plain HTTP on the TLS port', async () => {
    await expect(fetch(`${t.baseUrl.replace('https:', 'http:')}/api/health`)).rejects.toThrow();
  });
});

describe('OpenAPI servers follow configuration', () => {
  afterEach(resetEnv);

  it('lists the current origin and the configured environments, leaving unset ones out', async () => {
    const t = await TestApp.start({
      env: { PRODUCTION_BASE_URL: 'https://api.acme.test/api', LOCAL_BASE_URL: 'https://localhost:8443/api' },
    });
    try {
      const doc = (await t.request('GET', '/api/openapi.json')).body;
      expect(doc.servers).toEqual([
        { url: '/api', description: 'This server' },
        { url: 'https://api.acme.test/api', description: 'Production' },
        { url: 'https://localhost:8443/api', description: 'Local (HTTPS)' },
      ]);
      // Paths are relative to a base address ending with /api.
      expect(doc.paths['/posts']).toBeDefined();
      expect(doc.paths['/api/posts']).toBeUndefined();
    } finally {
      await t.close();
    }
  });

  it('lists only the current origin when no environment is configured', async () => {
    const t = await TestApp.start();
    try {
      const doc = (await t.request('GET', '/api/openapi.json')).body;
      expect(doc.servers).toEqual([{ url: '/api', description: 'This server' }]);
    } finally {
      await t.close();
    }
  });
});

describe('TRUST_PROXY and the per-address limit on failed authentications', () => {
  afterEach(resetEnv);

  /** Fails authentication `n` times, each from the X-Forwarded-For address `forwardedFor(i)`; returns the statuses. */
  async function failures(t: TestApp, n: number, forwardedFor: (i: number) => string): Promise<number[]> {
    const statuses: number[] = [];
    for (let i = 0; i < n; i++) {
      const res = await t.request('GET', '/api/posts', {
        key: 'spk_not_a_real_key',
        headers: { 'x-forwarded-for': forwardedFor(i) },
      });
      statuses.push(res.status);
    }
    return statuses;
  }

  it('off (default): X-Forwarded-For is ignored, every request counts against the proxy address', async () => {
    const t = await TestApp.start({ env: { AUTH_FAILURES_PER_MINUTE: '3' } });
    try {
      expect(await failures(t, 4, (i) => `203.0.113.${i + 1}`)).toEqual([401, 401, 401, 429]);
    } finally {
      await t.close();
    }
  });

  it('on: each real client address has its own limit, and one address is still limited', async () => {
    const t = await TestApp.start({ env: { AUTH_FAILURES_PER_MINUTE: '3', TRUST_PROXY: '1' } });
    try {
      expect(await failures(t, 4, (i) => `203.0.113.${i + 1}`)).toEqual([401, 401, 401, 401]);
      expect(await failures(t, 4, () => '198.51.100.7')).toEqual([401, 401, 401, 429]);
      // A forged hop before the real client does not escape the limit: only the nearest proxy is trusted.
      expect(await failures(t, 1, (i) => `10.9.9.${i}, 198.51.100.7`)).toEqual([429]);
    } finally {
      await t.close();
    }
  });
});
