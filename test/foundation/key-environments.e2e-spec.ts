import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { ApiKeysService } from '../../src/auth/api-keys.service';
import { checksum, hashApiKey } from '../../src/auth/api-key.format';
import { compiledEntry } from '../support/service-process';
import { TestApp } from '../support/test-app';

const run = promisify(execFile);

describe('API keys per environment (APP_ENVIRONMENT=production)', () => {
  let t: TestApp;
  let ownKey: string;
  beforeAll(async () => {
    t = await TestApp.start({ env: { APP_ENVIRONMENT: 'production' } });
    ownKey = (await t.createWorkspace()).key;
  });
  afterAll(async () => {
    await t.close();
    delete process.env.APP_ENVIRONMENT;
  });

  it('creates labelled keys over the API, lists their environment, and refuses other environments with 401', async () => {
    const made: Record<string, { key: string; id: string }> = {};
    for (const environment of ['production', 'development', 'local']) {
      const res = await t.request('POST', '/api/api-keys', { key: ownKey, body: { name: environment, environment } });
      expect(res.status).toBe(201);
      expect(res.body.environment).toBe(environment);
      made[environment] = res.body;
    }
    expect(made.production.key).toMatch(/^spk_live_/);
    expect(made.development.key).toMatch(/^spk_dev_/);
    expect(made.local.key).toMatch(/^spk_local_/);

    expect((await t.request('GET', '/api/posts', { key: made.production.key })).status).toBe(200);
    for (const other of [made.development.key, made.local.key]) {
      const res = await t.request('GET', '/api/posts', { key: other });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ error: 'UNAUTHORIZED', message: 'Invalid API key' });
    }

    const listed = await t.request('GET', '/api/api-keys', { key: ownKey });
    const envOf = (id: string) => listed.body.data.find((k: { id: string }) => k.id === id).environment;
    expect(envOf(made.development.id)).toBe('development');
    expect(envOf(made.local.id)).toBe('local');
  });

  it('refuses an unknown environment with 400', async () => {
    const res = await t.request('POST', '/api/api-keys', { key: ownKey, body: { name: 'x', environment: 'staging' } });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('VALIDATION_ERROR');
  });

  it('a development key relabelled spk_live_ is still refused (the row says development)', async () => {
    const res = await t.request('POST', '/api/api-keys', {
      key: ownKey,
      body: { name: 'd', environment: 'development' },
    });
    const forged = (res.body.key as string).replace('spk_dev_', 'spk_live_');
    expect((await t.request('GET', '/api/posts', { key: forged })).status).toBe(401);
  });

  it('keys made before environments (untagged, no environment) keep working', async () => {
    const { workspaceId } = await t.createWorkspace();
    const body = 'Legacy0Key0Body0Of0Thirty0Char';
    const legacy = `spk_${body}${checksum(body)}`;
    await t.dataSource.query(`INSERT INTO api_keys (workspace_id, name, prefix, key_hash) VALUES ($1, 'old', $2, $3)`, [
      workspaceId,
      legacy.slice(0, 12),
      hashApiKey(legacy),
    ]);
    const res = await t.request('GET', '/api/api-keys', { key: legacy });
    expect(res.status).toBe(200);
    expect(res.body.data[0].environment).toBeNull();
  });

  it('the CLI creates a labelled key and refuses an unknown environment', async () => {
    const cli = (...args: string[]) =>
      run(process.execPath, [...compiledEntry('cli'), ...args], {
        env: { ...process.env, LOG_LEVEL: 'warn' },
        cwd: `${__dirname}/../..`,
      });
    const { stdout } = await cli('keys:create', '--workspace', 'env-cli', '--environment', 'local');
    const out = JSON.parse(stdout);
    expect(out.environment).toBe('local');
    expect(out.key).toMatch(/^spk_local_/);
    expect((await t.request('GET', '/api/posts', { key: out.key })).status).toBe(401);
    await expect(cli('keys:create', '--workspace', 'env-cli', '--environment', 'staging')).rejects.toThrow(
      /--environment must be one of/,
    );
    expect(t.app.get(ApiKeysService).defaultEnvironment).toBe('production');
  }, 60_000);
});
