import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { BootstrapKeyService } from '../../src/auth/bootstrap-key.service';
import { compiledEntry } from '../support/service-process';
import { TestApp } from '../support/test-app';

const run = promisify(execFile);

describe('command line and first-start key', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await TestApp.start();
  });
  afterAll(() => t.close());

  const cli = async (...args: string[]) => {
    const { stdout, stderr } = await run(process.execPath, [...compiledEntry('cli'), ...args], {
      env: { ...process.env, LOG_LEVEL: 'info' },
      cwd: `${__dirname}/../..`,
    });
    return { out: JSON.parse(stdout), stdout, stderr };
  };
  const raw = (...args: string[]) =>
    new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        [...compiledEntry('cli'), ...args],
        { env: { ...process.env, LOG_LEVEL: 'info' }, cwd: `${__dirname}/../..` },
        (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? -1) : 0, stdout, stderr }),
      );
    });

  it('creates, lists and revokes keys, printing only JSON on stdout', async () => {
    const created = await cli('keys:create', '--workspace', 'cli-ws', '--name', 'laptop');
    expect(created.out).toEqual(
      expect.objectContaining({
        id: expect.any(String),
        key: expect.stringMatching(/^spk_/),
        workspaceId: expect.any(String),
        name: 'laptop',
      }),
    );
    expect(created.stdout.trim().split('\n')).toHaveLength(1);
    expect((await t.request('GET', '/api/api-keys', { key: created.out.key })).status).toBe(200);

    const listed = await cli('keys:list', '--workspace', created.out.workspaceId);
    expect(listed.out.data.map((k: { id: string }) => k.id)).toEqual([created.out.id]);
    expect(listed.stdout).not.toContain(created.out.key);

    const again = await cli('keys:create', '--workspace', 'cli-ws');
    expect(again.out.workspaceId).toBe(created.out.workspaceId);

    const revoked = await cli('keys:revoke', created.out.id);
    expect(revoked.out.revokedAt).toEqual(expect.any(String));
    // revocation broadcast over Redis reaches the running app at once
    await new Promise((r) => setTimeout(r, 100));
    expect((await t.request('GET', '/api/api-keys', { key: created.out.key })).status).toBe(401);
  }, 180_000); // four CLI processes, each compiling with ts-node: slow on a busy machine

  it('organizations:create prints one JSON line: a new organization, its workspace and a key holding *', async () => {
    const made = await cli('organizations:create', '--name', 'CLI Platform');
    expect(made.stdout.trim().split('\n')).toHaveLength(1);
    expect(made.out).toEqual({
      organizationId: expect.any(String),
      workspaceId: expect.any(String),
      key: expect.stringMatching(/^spk_/),
    });
    const own = await t.request('GET', '/api/workspace', { key: made.out.key });
    expect(own.body).toMatchObject({ id: made.out.workspaceId, name: 'CLI Platform' });
    // The key manages the new organization's workspaces, and only those.
    const list = await t.request('GET', '/api/workspaces', { key: made.out.key });
    expect(list.body.data.map((w: { id: string }) => w.id)).toEqual([made.out.workspaceId]);
    const keys = await t.request('GET', '/api/api-keys', { key: made.out.key });
    expect(keys.body.data[0].scopes).toEqual(['*']);

    const missing = await raw('organizations:create');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('--name');
  }, 120_000);

  it('creates a key with --scopes that the API holds to them, and refuses unknown scopes', async () => {
    const [scoped, bad] = await Promise.all([
      cli('keys:create', '--workspace', 'cli-scopes', '--scopes', 'posts:write,posts:read'),
      raw('keys:create', '--workspace', 'cli-scopes', '--scopes', 'posts:read,posts:destroy'),
    ]);
    expect(scoped.out.scopes).toEqual(['posts:read', 'posts:write']);
    expect((await t.request('GET', '/api/posts', { key: scoped.out.key })).status).toBe(200);
    const refused = await t.request('GET', '/api/webhooks', { key: scoped.out.key });
    expect(refused.status).toBe(403);
    expect(refused.body.message).toContain('webhooks:manage');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^error: --scopes .*unknown: posts:destroy\n$/);
  }, 180_000);

  it('prints usage with --help and help <command> (exit 0) and every error as one line (exit 1)', async () => {
    // Each run compiles the CLI with ts-node: run them side by side.
    const errorCases = [[], ['nope'], ['keys:create'], ['keys:revoke'], ['keys:list', '--workspace', 'no-such-ws']];
    const [help, one, list, ...errors] = await Promise.all([
      raw('--help'),
      raw('help', 'keys:create'),
      raw('keys:list', '--help'),
      ...errorCases.map((args) => raw(...args)),
    ]);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: npm run -s cli -- <command>/);
    expect(help.stdout).toContain('keys:revoke <key-id>');
    expect(one.code).toBe(0);
    expect(one.stdout).toContain('--workspace <name-or-id>');
    expect(list.stdout).toContain('keys:list --workspace');
    errors.forEach((res, i) => {
      const args = errorCases[i];
      expect({ args, code: res.code, stdout: res.stdout }).toEqual({ args, code: 1, stdout: '' });
      expect(res.stderr).toMatch(/^error: [^\n]+\n$/);
    });
  }, 180_000);

  it('creates workspace "default" and one key on the first start only', async () => {
    process.env.BOOTSTRAP_KEY = 'true';
    const fresh = await TestApp.start({ env: { BOOTSTRAP_KEY: 'true' } });
    try {
      await fresh.app.get(BootstrapKeyService).run();
      await fresh.app.get(BootstrapKeyService).run();
      const rows = await fresh.dataSource.query(
        "SELECT count(*)::int AS n FROM api_keys k JOIN workspaces w ON w.id = k.workspace_id WHERE w.name = 'default'",
      );
      expect(rows[0].n).toBe(1);
    } finally {
      await fresh.close();
      process.env.BOOTSTRAP_KEY = 'false';
    }
  });
});
