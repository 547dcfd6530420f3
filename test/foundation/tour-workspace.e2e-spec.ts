import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BootstrapKeyService } from '../../src/auth/bootstrap-key.service';
import { SetupLinkService } from '../../src/users/setup-link.service';
import { UsersService } from '../../src/users/users.service';
import { runCli } from '../support/service-process';
import { TestApp } from '../support/test-app';

const ROOT = join(__dirname, '..', '..');

/** The arguments of the first `npm run -s cli --` command of the README's tour ("Using the API"), as written. */
function tourKeyCommand(): string[] {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const tour = readme.slice(readme.indexOf('## Using the API'));
  const block = /```bash\n([\s\S]*?)```/.exec(tour)?.[1] ?? '';
  const line = block.split('\n').find((l) => l.includes('npm run -s cli --'));
  if (!line) throw new Error('the README tour has no CLI command');
  const command = line.slice(line.indexOf('npm run -s cli --') + 'npm run -s cli --'.length).split('|')[0];
  return command
    .replace(/\)\s*$/, '')
    .trim()
    .split(/\s+/);
}

/**
 * A newcomer starts the service (the bootstrap key and the setup link are printed), opens the setup
 * link, then follows the README tour: the key of the tour's first step, the bootstrap key and the
 * console's first owner are all in one workspace, so what the tour creates shows in the console.
 */
describe('the README tour and the console meet in one workspace', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await TestApp.start({ role: 'api', env: { BOOTSTRAP_KEY: 'true' } });
  });
  afterAll(() => t.close());

  it("makes the tour's key in the workspace of the bootstrap key and the console's first owner", async () => {
    await t.app.get(BootstrapKeyService).run();
    const link = await t.app.get(SetupLinkService).run();
    const token = new URL(link!).searchParams.get('token')!;
    const owner = await t.app.get(UsersService).acceptLink(token, {
      email: 'first@example.com',
      password: 'a long enough password',
    });
    const [bootstrap] = await t.dataSource.query(`SELECT workspace_id FROM api_keys WHERE name = 'bootstrap'`);
    expect(bootstrap.workspace_id).toBe(owner.workspaceId);

    const args = tourKeyCommand();
    expect(args[0]).toBe('keys:create');
    const created = await runCli(args);
    expect(created.workspaceId).toBe(owner.workspaceId);

    // And the console's owner sees the tour's key among the workspace's keys.
    const listed = await t.request('GET', '/api/api-keys', { key: created.key });
    expect(listed.body.data.map((k: { name: string }) => k.name)).toEqual(
      expect.arrayContaining(['bootstrap', created.name]),
    );
  }, 60_000);
});
