import Redis from 'ioredis';
import { ApiKeysService } from '../../src/auth/api-keys.service';
import { REDIS } from '../../src/redis/redis.module';
import { SetupLinkService } from '../../src/users/setup-link.service';
import { UsersService } from '../../src/users/users.service';
import { ConsoleClient } from '../support/console-client';
import { TestApp } from '../support/test-app';

const PER_ACCOUNT = 5;
const PER_ADDRESS = 12;

/** `/console/setup?token=...` of a printed link. */
const pathOf = (url: string) => new URL(url).pathname + new URL(url).search;
const tokenOf = (url: string) => new URL(url).searchParams.get('token')!;

/**
 * What an attack run found in the console: sign-in limits that parallel attempts raced past, and
 * setup links printed at earlier starts that still created owners after the first one existed.
 */
describe('console under attack', () => {
  let t: TestApp;
  let users: UsersService;

  const owners = async (workspaceId: string) =>
    (await users.listMembers(workspaceId)).filter((m) => m.role === 'owner').map((m) => m.email);

  /** Posts the setup form of `link` (its page's CSRF token first). */
  const useSetupLink = async (link: string, email: string) => {
    const c = new ConsoleClient(t.baseUrl);
    const csrf = await c.csrf('/console/login');
    return c.request('POST', '/console/setup', {
      token: tokenOf(link),
      email,
      password: `${email} password`,
      _csrf: csrf,
    });
  };

  beforeAll(async () => {
    t = await TestApp.start({
      env: {
        LOGIN_FAILURES_PER_ACCOUNT: String(PER_ACCOUNT),
        LOGIN_FAILURES_PER_ADDRESS: String(PER_ADDRESS),
        CONSOLE_SETUP_LINK: 'true',
      },
    });
    users = t.app.get(UsersService);
  });
  afterAll(() => t.close());

  describe('setup links', () => {
    it('once the first owner exists, a setup link printed at an earlier start is dead', async () => {
      const setup = t.app.get(SetupLinkService);
      // Two starts without a user: two links.
      const first = (await setup.run())!;
      const second = (await setup.run())!;
      expect(first).toMatch(/\/console\/setup\?token=/);
      expect(second).toMatch(/\/console\/setup\?token=/);

      expect((await useSetupLink(second, 'first-owner@example.com')).status).toBe(303);

      const page = await new ConsoleClient(t.baseUrl).request('GET', pathOf(first));
      expect(page.status).toBe(404);
      const used = await useSetupLink(first, 'second-owner@example.com');
      expect(used.status).toBe(404);
      expect(used.text).toContain('This link is used, expired or unknown');
      const workspace = await t.app.get(ApiKeysService).resolveWorkspace('default', false);
      expect(await owners(workspace.id)).toEqual(['first-owner@example.com']);
      expect(await users.findByEmail('second-owner@example.com')).toBeNull();
    });

    it('two setup links used at the same moment create one owner', async () => {
      const workspace = await t.app.get(ApiKeysService).resolveWorkspace('setup-race', true);
      const links = await Promise.all(
        [0, 1, 2, 3].map(async () => (await users.createLink('setup', workspace.id, null, 'owner')).url),
      );
      const results = await Promise.all(links.map((link, i) => useSetupLink(link, `racer-${i}@example.com`)));
      expect(results.map((r) => r.status).sort()).toEqual([303, 404, 404, 404]);
      expect(await owners(workspace.id)).toHaveLength(1);
    });

    it('an owner who arrived another way (an invitation, the CLI) also ends the setup links', async () => {
      const workspace = await t.app.get(ApiKeysService).resolveWorkspace('setup-then-invite', true);
      const setupLink = (await users.createLink('setup', workspace.id, null, 'owner')).url;
      const invitation = (await users.createLink('invitation', workspace.id, 'invited-owner@example.com', 'owner')).url;
      const c = new ConsoleClient(t.baseUrl);
      const joined = await c.submit(pathOf(invitation), '/console/invitations/accept', {
        token: tokenOf(invitation),
        password: 'invited owner password',
      });
      expect(joined.status).toBe(303);
      expect((await useSetupLink(setupLink, 'late@example.com')).status).toBe(404);
      expect(await owners(workspace.id)).toEqual(['invited-owner@example.com']);
    });
  });

  describe('sign-in limits', () => {
    let workspaceId: string;

    const makeUser = async (email: string) => {
      const { url } = await users.createLink('invitation', workspaceId, email, 'member');
      const c = new ConsoleClient(t.baseUrl);
      const res = await c.submit(pathOf(url), '/console/invitations/accept', {
        token: tokenOf(url),
        password: `${email} password`,
      });
      expect(res.status).toBe(303);
    };

    beforeAll(async () => {
      workspaceId = (await t.app.get(ApiKeysService).resolveWorkspace('limits-ws', true)).id;
    });

    // Each test starts from fresh counters (the address is 127.0.0.1 for every request here).
    beforeEach(async () => {
      const redis = t.app.get<Redis>(REDIS);
      await redis.del('login:ip:127.0.0.1');
    });

    it('checks at most LOGIN_FAILURES_PER_ACCOUNT of 41 parallel attempts on one email; the right password is refused once they are used up', async () => {
      const email = 'target@example.com';
      await makeUser(email);
      const c = new ConsoleClient(t.baseUrl);
      const csrf = await c.csrf('/console/login');
      const attempt = (password: string) => c.request('POST', '/console/login', { email, password, _csrf: csrf });

      const wrong = Array.from({ length: 40 }, (_, i) => attempt(`wrong password ${i}`));
      const right = attempt(`${email} password`);
      const results = await Promise.all([...wrong, right]);
      const statuses = results.map((r) => r.status);

      const checked = statuses.filter((s) => s === 401 || s === 303).length;
      expect(checked).toBeLessThanOrEqual(PER_ACCOUNT);
      expect(statuses.filter((s) => s === 429)).toHaveLength(results.length - checked);
      expect(statuses.every((s) => [401, 303, 429].includes(s))).toBe(true);
      // Sent last, after forty wrong ones had used the limit up.
      expect((await right).status).toBe(429);
      // And later on its own, within the window.
      expect((await attempt(`${email} password`)).status).toBe(429);
    });

    it('checks at most LOGIN_FAILURES_PER_ADDRESS of 30 parallel attempts from one address on as many emails', async () => {
      const c = new ConsoleClient(t.baseUrl);
      const csrf = await c.csrf('/console/login');
      const results = await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          c.request('POST', '/console/login', {
            email: `nobody-${i}@example.com`,
            password: 'not the password',
            _csrf: csrf,
          }),
        ),
      );
      const statuses = results.map((r) => r.status);
      expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(PER_ADDRESS);
      expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(30 - PER_ADDRESS);
    });

    it('a right password within the limit signs in and forgives the earlier failures of the account', async () => {
      const email = 'forgetful@example.com';
      await makeUser(email);
      // A fresh browser each time (a signed-in one would carry another CSRF token).
      const attempt = async (password: string) => {
        const c = new ConsoleClient(t.baseUrl);
        return c.request('POST', '/console/login', { email, password, _csrf: await c.csrf('/console/login') });
      };
      for (let i = 0; i < PER_ACCOUNT - 1; i++) expect((await attempt(`typo ${i}`)).status).toBe(401);
      expect((await attempt(`${email} password`)).status).toBe(303);
      for (let i = 0; i < PER_ACCOUNT - 1; i++) expect((await attempt(`typo again ${i}`)).status).toBe(401);
    });
  });
});
