import { consoleConfig } from '../../src/config';
import { SetupLinkService } from '../../src/users/setup-link.service';
import { runCli } from '../support/service-process';
import { TestApp } from '../support/test-app';

/**
 * One setting names the service's public address: the links the service prints (the setup link at
 * start, `users:create`'s invitation) use PUBLIC_BASE_URL unless CONSOLE_URL says otherwise.
 */
describe('printed console links follow PUBLIC_BASE_URL', () => {
  let t: TestApp;
  const PUBLIC = 'https://social.example.com';

  beforeAll(async () => {
    t = await TestApp.start({ role: 'api', env: { PUBLIC_BASE_URL: PUBLIC } });
  });
  afterAll(() => t.close());

  /** consoleConfig read with these variables (undefined: unset), the rest as the spec's environment. */
  function consoleUrlWith(vars: Record<string, string | undefined>): string {
    const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
    const apply = (values: Record<string, string | undefined>) => {
      for (const [k, v] of Object.entries(values)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    };
    apply(vars);
    try {
      return consoleConfig().url;
    } finally {
      apply(saved);
    }
  }

  it('prints the setup link at start under PUBLIC_BASE_URL', async () => {
    const link = await t.app.get(SetupLinkService).run();
    expect(link).toMatch(/^https:\/\/social\.example\.com\/console\/setup\?token=/);
  });

  it('prints the invitation link of users:create under PUBLIC_BASE_URL', async () => {
    const out = await runCli(['users:create', '--email', 'ana@example.com', '--workspace', 'acme'], {
      PUBLIC_BASE_URL: `${PUBLIC}/`,
    });
    expect(out.setupLink).toMatch(/^https:\/\/social\.example\.com\/console\/invitations\/accept\?token=/);
  }, 60_000);

  it('keeps CONSOLE_URL when set, and without either uses localhost on PORT', () => {
    expect(consoleUrlWith({ CONSOLE_URL: 'https://console.example.com/console/', PUBLIC_BASE_URL: PUBLIC })).toBe(
      'https://console.example.com/console',
    );
    expect(consoleUrlWith({ CONSOLE_URL: undefined, PUBLIC_BASE_URL: 'https://a.example/sps' })).toBe(
      'https://a.example/sps/console',
    );
    expect(consoleUrlWith({ CONSOLE_URL: undefined, PUBLIC_BASE_URL: undefined, PORT: '4321' })).toBe(
      'http://localhost:4321/console',
    );
  });
});
