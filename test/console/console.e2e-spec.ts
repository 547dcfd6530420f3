import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Browser, BrowserContext, Page } from 'playwright-core';
import { ApiKeysService } from '../../src/auth/api-keys.service';
import { SetupLinkService } from '../../src/users/setup-link.service';
import { UsersService } from '../../src/users/users.service';
import { LinkedInFake } from '../fakes/linkedin.fake';
import { MastodonFake } from '../fakes/mastodon.fake';
import { compiledEntry } from '../support/service-process';
import { TestApp, freePort } from '../support/test-app';
import { WebhookReceiver } from '../support/webhook-receiver';
import { launchChromium, screenshot } from './browser';

const run = promisify(execFile);
const OWNER = { email: 'owner@example.com', password: 'correct horse battery staple' };
const SCRIPT_NAME = '<script>alert(1)</script>';

describe('account console in Chromium', () => {
  let t: TestApp;
  let browser: Browser;
  let owner: BrowserContext;
  let page: Page;
  let mastodon: MastodonFake;
  let linkedin: LinkedInFake;
  let receiver: WebhookReceiver;
  let receiverUrl: string;
  const dialogs: string[] = [];

  /** A printed link (CONSOLE_URL's origin) pointed at the test server. */
  const local = (link: string) => {
    const u = new URL(link);
    return `${t.baseUrl}${u.pathname}${u.search}`;
  };

  const newPage = async (context: BrowserContext) => {
    const p = await context.newPage();
    p.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    return p;
  };

  const signIn = async (p: Page, email: string, password: string) => {
    await p.goto(`${t.baseUrl}/console/login`);
    await p.getByLabel('Email').fill(email);
    await p.getByLabel('Password').fill(password);
    await p.getByRole('button', { name: 'Sign in' }).click();
  };

  const acceptLink = async (p: Page, link: string, password: string, email?: string) => {
    await p.goto(local(link));
    if (email) await p.locator('input[name="email"]').fill(email);
    await p.locator('input[name="password"]').fill(password);
    await p.locator('form button[type="submit"]').last().click();
    await p.waitForURL('**/console/keys');
  };

  const createKey = async (p: Page, name: string, environment = 'production') => {
    await p.goto(`${t.baseUrl}/console/keys`);
    await p.locator('input[name="name"]').fill(name);
    await p.getByLabel('Environment').selectOption(environment);
    await p.getByRole('button', { name: 'Create key' }).click();
    await p.waitForURL('**/console/keys');
    return (await p.getByTestId('new-api-key').textContent())!.trim();
  };

  beforeAll(async () => {
    mastodon = new MastodonFake({
      tokens: [{ token: 'tok-console', username: 'consoleuser', displayName: 'Console User' }],
    });
    await mastodon.start();
    linkedin = new LinkedInFake({
      members: [
        {
          sub: 'consoleMember1',
          name: 'Console Member',
          roles: [{ organizationId: '2414183', role: 'ADMINISTRATOR' }],
        },
      ],
      organizations: [{ id: '2414183', localizedName: 'Acme Corp', vanityName: 'acme' }],
    });
    await linkedin.start();
    receiver = new WebhookReceiver();
    receiverUrl = await receiver.start();
    // The OAuth callback and the console's return page need the app's own address before it starts.
    const port = await freePort();
    t = await TestApp.start({
      port,
      env: {
        CONSOLE_SETUP_LINK: 'true',
        LOGIN_FAILURES_PER_ACCOUNT: '5',
        ...linkedin.appEnv(),
        X_CLIENT_ID: '',
        X_CLIENT_SECRET: '',
        PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
        CONSOLE_URL: `http://127.0.0.1:${port}/console`,
      },
    });
    browser = await launchChromium();
    owner = await browser.newContext({ viewport: { width: 1200, height: 900 } });
    page = await newPage(owner);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await mastodon?.stop();
    await linkedin?.stop();
    await receiver?.stop();
  });

  it('sets up the first owner from the link printed at first start', async () => {
    const link = await t.app.get(SetupLinkService).run();
    expect(link).toMatch(/\/console\/setup\?token=[\w-]{43}$/);
    await page.goto(local(link!));
    await expect(page.getByRole('heading', { name: 'Create the first owner' }).isVisible()).resolves.toBe(true);
    await screenshot(page, '01-setup');
    await acceptLink(page, link!, OWNER.password, OWNER.email);
    expect(await page.getByRole('heading', { name: 'Account settings · API keys' }).isVisible()).toBe(true);
    await screenshot(page, '02-keys-empty');

    // The link worked once; with a user now, no new link is printed.
    const again = await page.context().newPage();
    const res = await again.goto(local(link!));
    expect(res!.status()).toBe(404);
    await again.close();
    expect(await t.app.get(SetupLinkService).run()).toBeNull();
  });

  it('signs out, refuses a wrong password with an error, and signs in', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL('**/console/login');
    await signIn(page, OWNER.email, 'wrong password here');
    expect(await page.getByRole('alert').textContent()).toContain('Wrong email or password');
    await screenshot(page, '03-login-wrong-password');
    await signIn(page, OWNER.email, OWNER.password);
    await page.waitForURL('**/console/keys');
  });

  it('creates a key shown once, usable on the API, gone after reload; revoking it makes the API answer 401', async () => {
    const key = await createKey(page, 'ci', 'production');
    expect(key).toMatch(/^spk_live_[0-9A-Za-z]{36}$/);
    expect(await page.getByText('shown only once').isVisible()).toBe(true);
    await screenshot(page, '04-key-created');
    await owner.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: t.baseUrl });
    await page.getByRole('button', { name: 'Copy' }).click();
    await page.getByRole('button', { name: 'Copied' }).waitFor();
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(key);
    expect((await t.request('GET', '/api/posts', { key })).status).toBe(200);

    await page.reload();
    expect(await page.getByTestId('new-api-key').count()).toBe(0);
    expect(await page.content()).not.toContain(key);
    const row = page.getByTestId('api-key-row').filter({ hasText: 'ci' });
    expect(await row.textContent()).toContain(key.slice(0, 17));
    expect(await row.textContent()).toContain('production');

    await row.getByTestId('revoke-key').click();
    expect(await page.getByRole('heading', { name: 'Revoke this key?' }).isVisible()).toBe(true);
    await screenshot(page, '05-revoke-confirm');
    await page.getByRole('button', { name: 'Revoke key' }).click();
    await page.waitForURL('**/console/keys');
    expect(await page.getByTestId('api-key-row').filter({ hasText: 'ci' }).textContent()).toContain('revoked');
    const refused = await t.request('GET', '/api/posts', { key });
    expect(refused.status).toBe(401);
    expect(refused.body).toEqual({ error: 'UNAUTHORIZED', message: 'Invalid API key' });
    await screenshot(page, '06-key-revoked');
  });

  it('renders a key named <script>alert(1)</script> as text', async () => {
    await createKey(page, SCRIPT_NAME, 'development');
    await page.reload();
    const row = page.getByTestId('api-key-row').filter({ hasText: SCRIPT_NAME });
    expect(await row.count()).toBe(1);
    expect(await row.textContent()).toContain('development');
    expect(await page.locator('main script').count()).toBe(0);
    expect(await page.content()).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(dialogs).toEqual([]);
    await screenshot(page, '07-script-named-key');
  });

  it('answers 403 to a form posted without (or with a wrong) CSRF token', async () => {
    const missing = await page.request.post(`${t.baseUrl}/console/keys`, {
      form: { name: 'no-csrf' },
      maxRedirects: 0,
    });
    expect(missing.status()).toBe(403);
    expect(await missing.text()).toContain('Not allowed');
    const wrong = await page.request.post(`${t.baseUrl}/console/keys`, {
      form: { name: 'bad-csrf', _csrf: 'x'.repeat(43) },
      maxRedirects: 0,
    });
    expect(wrong.status()).toBe(403);
    const login = await fetch(`${t.baseUrl}/console/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(OWNER).toString(),
      redirect: 'manual',
    });
    expect(login.status).toBe(403);
    await page.goto(`${t.baseUrl}/console/keys`);
    expect(await page.getByTestId('api-key-row').filter({ hasText: 'csrf' }).count()).toBe(0);
  });

  it('never takes an API key on console pages, and the API never takes the session cookie', async () => {
    const cookies = await owner.cookies();
    const session = cookies.find((c) => c.name === 'sps_session')!;
    expect(session.httpOnly).toBe(true);
    expect(session.sameSite).toBe('Lax');
    const { key } = await t.createWorkspace();
    const consoleWithKey = await fetch(`${t.baseUrl}/console/keys`, {
      headers: { 'x-api-key': key },
      redirect: 'manual',
    });
    expect(consoleWithKey.status).toBe(303);
    expect(consoleWithKey.headers.get('location')).toBe('/console/login');
    const apiWithCookie = await t.request('GET', '/api/posts', { headers: { cookie: `sps_session=${session.value}` } });
    expect(apiWithCookie.status).toBe(401);
    expect(apiWithCookie.body).toEqual({
      error: 'UNAUTHORIZED',
      message: 'API key required',
    });
  });

  it('sends safe headers: CSP without inline script, no framing, no caching', async () => {
    const res = await page.goto(`${t.baseUrl}/console/keys`);
    const headers = res!.headers();
    expect(headers['content-security-policy']).toContain("script-src 'self'");
    expect(headers['content-security-policy']).not.toContain('unsafe-inline');
    expect(headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(headers['x-frame-options']).toBe('DENY');
    expect(headers['cache-control']).toBe('no-store');
    expect(await page.locator('script:not([src])').count()).toBe(0);
  });

  it('connects a Mastodon channel through the form generated from its credentials schema, and disconnects it', async () => {
    await page.goto(`${t.baseUrl}/console/channels`);
    expect(await page.getByTestId('network-tile').filter({ hasText: 'Bluesky' }).isVisible()).toBe(true);
    await page.getByTestId('network-tile').filter({ hasText: 'Mastodon' }).click();
    await page.waitForURL('**/console/channels/connect/mastodon');
    const form = page.locator('form', { has: page.locator('input[name="provider"][value="mastodon"]') });
    await form.getByLabel('Instance URL').fill(mastodon.baseUrl);
    await form.getByLabel('Access token').fill('tok-console');
    await screenshot(page, '08a-connect-mastodon');
    await form.getByRole('button', { name: 'Connect Mastodon' }).click();
    await page.waitForURL('**/console/channels');
    const row = page.getByTestId('channel-row').filter({ hasText: 'Console User' });
    expect(await row.textContent()).toContain('active');
    await screenshot(page, '08-channels');
    await row.getByRole('link', { name: /Disconnect/ }).click();
    await page.getByRole('button', { name: 'Disconnect channel' }).click();
    await page.waitForURL('**/console/channels');
    expect(await page.getByTestId('channel-row').first().textContent()).toContain('user_request');
  });

  it('connects a sandbox channel with typed fields: a number and a yes/no choice reach its limits', async () => {
    await page.goto(`${t.baseUrl}/console/channels/connect/sandbox`);
    const form = page.locator('form', { has: page.locator('input[name="provider"][value="sandbox"]') });
    await form.getByLabel('Name').fill('Typed sandbox');
    await form.getByLabel(/Max characters/).fill('280');
    expect(await form.getByLabel(/Max characters/).getAttribute('type')).toBe('number');
    await form.getByLabel(/Threads/).selectOption('false');
    await form.getByRole('button', { name: 'Connect Sandbox' }).click();
    await page.waitForURL('**/console/channels');
    expect(await page.getByRole('status').textContent()).toContain('Connected Sandbox account');
    const [channel] = await t.dataSource.query(`SELECT limits FROM channels WHERE name = 'Typed sandbox'`);
    expect(channel.limits).toEqual(expect.objectContaining({ maxCharacters: 280, threads: false }));
  });

  it('connects LinkedIn through its consent page and chooses the member and a page', async () => {
    // Networks without app credentials here (X among them) say so instead of offering a button.
    await page.goto(`${t.baseUrl}/console/channels/connect/x`);
    expect(await page.getByTestId('oauth-disabled').textContent()).toContain('X is not enabled on this server');
    expect(await page.getByRole('button', { name: 'Connect X' }).count()).toBe(0);
    await page.goto(`${t.baseUrl}/console/channels`);
    await page.getByTestId('network-tile').filter({ hasText: 'LinkedIn' }).click();
    await page.getByRole('button', { name: 'Connect LinkedIn' }).click();
    await page.waitForURL(`${linkedin.baseUrl}/oauth/v2/authorization?**`);
    expect(await page.getByText('Signed in as Console Member').isVisible()).toBe(true);
    await screenshot(page, '08b-linkedin-consent');
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL('**/console/channels/connections/*');
    expect(await page.getByRole('heading', { name: 'Choose LinkedIn accounts' }).isVisible()).toBe(true);
    expect(await page.getByTestId('target-choice').count()).toBe(2);
    await screenshot(page, '08c-linkedin-choose');

    await page.getByRole('button', { name: 'Connect selected' }).click();
    await page.waitForURL('**/console/channels/connections/*');
    expect(await page.getByRole('alert').textContent()).toContain('Choose at least one account');
    const choice = page.url();

    await page.getByLabel('Console Member').check();
    await page.getByLabel('Acme Corp').check();
    await page.getByRole('button', { name: 'Connect selected' }).click();
    await page.waitForURL('**/console/channels');
    expect(await page.getByRole('status').textContent()).toContain('Connected LinkedIn account');
    for (const name of ['Console Member', 'Acme Corp']) {
      const row = page.getByTestId('channel-row').filter({ hasText: name });
      expect(await row.textContent()).toContain('LinkedIn');
      expect(await row.textContent()).toContain('active');
    }
    await screenshot(page, '08d-linkedin-connected');

    // The choice is used once.
    await page.goto(choice);
    await page.waitForURL('**/console/channels');
    expect(await page.getByRole('alert').textContent()).toContain('already used');
  });

  it('adds a webhook (secret shown once), sends a test and shows the delivery log', async () => {
    await page.goto(`${t.baseUrl}/console/webhooks`);
    await page.getByLabel('URL').fill(`${receiverUrl}/hook`);
    await page.getByLabel('post.published').check();
    await page.getByRole('button', { name: 'Add webhook' }).click();
    await page.waitForURL('**/console/webhooks');
    expect(await page.getByTestId('new-webhook-secret').textContent()).toMatch(/^whsec_/);
    await screenshot(page, '09-webhooks');
    await page.reload();
    expect(await page.getByTestId('new-webhook-secret').count()).toBe(0);

    const row = page.getByTestId('webhook-row').first();
    await row.getByRole('button', { name: 'Disable' }).click();
    await page.waitForURL('**/console/webhooks');
    expect(await page.getByTestId('webhook-row').first().textContent()).toContain('paused');
    await page.getByTestId('webhook-row').first().getByRole('button', { name: 'Enable' }).click();
    await page.waitForURL('**/console/webhooks');
    await page.getByTestId('webhook-row').first().getByRole('button', { name: 'Send test' }).click();
    await page.waitForURL('**/console/webhooks/*');
    for (let i = 0; i < 40 && (await page.getByTestId('delivery-row').count()) === 0; i++) {
      await new Promise((r) => setTimeout(r, 250));
      await page.reload();
    }
    expect(await page.getByTestId('delivery-row').first().textContent()).toContain('webhook.test');
    await screenshot(page, '10-webhook-deliveries');
  });

  it('lists posts read-only with filters', async () => {
    await page.goto(`${t.baseUrl}/console/posts?status=failed`);
    expect(await page.getByLabel('Status').inputValue()).toBe('failed');
    await screenshot(page, '11-posts');
    const bad = await page.goto(`${t.baseUrl}/console/posts?status=nonsense`);
    expect(bad!.status()).toBe(400);
  });

  it('lets an owner invite a member, who cannot open Members', async () => {
    await page.goto(`${t.baseUrl}/console/members`);
    await page.getByLabel('Email').fill('member@example.com');
    await page.getByRole('button', { name: 'Create invitation link' }).click();
    await page.waitForURL('**/console/members');
    const link = (await page.getByTestId('invitation-link').textContent())!.trim();
    expect(link).toContain('/console/invitations/accept?token=');
    await screenshot(page, '12-members');

    const memberContext = await browser.newContext({ viewport: { width: 375, height: 800 } });
    try {
      const m = await newPage(memberContext);
      await m.goto(local(link));
      await screenshot(m, '13-accept-invitation-375px');
      await acceptLink(m, link, 'member password 123');
      expect(await m.getByRole('link', { name: 'Members' }).count()).toBe(0);
      const res = await m.goto(`${t.baseUrl}/console/members`);
      expect(res!.status()).toBe(403);
      expect(await m.getByText('Only owners').isVisible()).toBe(true);
      await screenshot(m, '14-member-cannot-open-members');
      await m.goto(`${t.baseUrl}/console/keys`);
      const overflow = await m.evaluate('document.documentElement.scrollWidth - window.innerWidth');
      expect(overflow as number).toBeLessThanOrEqual(0);
      await screenshot(m, '15-keys-375px');
    } finally {
      await memberContext.close();
    }
  });

  it('keeps workspaces apart: a session of workspace A cannot see or revoke B keys', async () => {
    const keys = t.app.get(ApiKeysService);
    const b = await keys.resolveWorkspace('workspace-b', true);
    const { link } = {
      link: (await t.app.get(UsersService).createLink('invitation', b.id, 'b-owner@example.com', 'owner')).url,
    };
    const bContext = await browser.newContext();
    try {
      const bp = await newPage(bContext);
      await acceptLink(bp, link, 'b owner password 1');
      await createKey(bp, 'b-only-key');
    } finally {
      await bContext.close();
    }
    const bKey = (await keys.list(b.id, 10)).data.find((k) => k.name === 'b-only-key')!;
    await page.goto(`${t.baseUrl}/console/keys`);
    expect(await page.getByText('b-only-key').count()).toBe(0);
    const res = await page.goto(`${t.baseUrl}/console/keys/${bKey.id}/revoke`);
    expect(res!.status()).toBe(404);
    expect((await keys.get(b.id, bKey.id)).revokedAt).toBeNull();
  });

  it('throttles sign-in per account without telling whether the email exists', async () => {
    const attempt = async (email: string, password: string) => {
      const ctx = await browser.newContext();
      try {
        const p = await ctx.newPage();
        await signIn(p, email, password);
        await p.waitForLoadState();
        const alert = p.getByRole('alert');
        return (await alert.count()) ? (await alert.textContent())!.trim() : 'signed in';
      } finally {
        await ctx.close();
      }
    };
    expect(await attempt('nobody@example.com', 'whatever password')).toBe(
      await attempt(OWNER.email, 'not the password'),
    );
    for (let i = 0; i < 4; i++) await attempt(OWNER.email, `wrong ${i}`);
    expect(await attempt(OWNER.email, OWNER.password)).toContain('Too many failed sign-ins');
  });

  it('users:create prints JSON with a one-time setup link', async () => {
    const { stdout } = await run(
      process.execPath,
      [
        ...compiledEntry('cli'),
        'users:create',
        '--email',
        'cli@example.com',
        '--workspace',
        'cli-ws',
        '--role',
        'owner',
      ],
      { env: { ...process.env, LOG_LEVEL: 'warn' }, cwd: `${__dirname}/../..` },
    );
    const out = JSON.parse(stdout);
    expect(out).toEqual(
      expect.objectContaining({
        email: 'cli@example.com',
        role: 'owner',
        setupLink: expect.stringContaining('/console/invitations/accept?token='),
      }),
    );
    const ctx = await browser.newContext();
    try {
      const p = await newPage(ctx);
      await acceptLink(p, out.setupLink, 'cli owner password');
      expect(await p.getByText('cli-ws').count()).toBeGreaterThan(0);
      expect(await p.getByRole('link', { name: 'Members' }).count()).toBe(1);
    } finally {
      await ctx.close();
    }
  }, 120_000);
});
