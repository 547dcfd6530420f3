import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Browser, Page } from 'playwright-core';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { expectFitsWidth, launchChromium, screenshot } from '../console/browser';
import { consoleSession } from '../console/console-session';
import { PinterestFake } from '../fakes/pinterest.fake';
import { XFake } from '../fakes/x.fake';
import { freePort, TestApp } from '../support/test-app';
import { WebhookReceiver } from '../support/webhook-receiver';

/** The platform's own site: where a link sends the person back; it records every arrival. */
class PlatformSite {
  readonly arrivals: URL[] = [];
  private server: http.Server | undefined;
  base = '';

  async start(): Promise<void> {
    this.server = http.createServer((req, res) => {
      this.arrivals.push(new URL(req.url ?? '/', this.base));
      res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>Platform</title><p>Back home</p>');
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.base = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  stop(): Promise<void> {
    this.server?.closeAllConnections();
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

/** A link's path and query, to request it from the test app. */
const pathOf = (url: string) => {
  const u = new URL(url);
  return `${u.pathname}${u.search}`;
};

describe('hosted connect links', () => {
  const x = new XFake();
  const pinterest = new PinterestFake({
    boards: [
      { id: '549755885301', name: 'Recipes' },
      { id: '549755885302', name: 'Travel' },
      { id: '549755885303', name: 'Garden' },
    ],
  });
  const site = new PlatformSite();
  const receiver = new WebhookReceiver();
  let t: TestApp;
  let browser: Browser;
  let ws: { key: string; workspaceId: string };
  let other: { key: string; workspaceId: string };
  let hook: { id: string; secret: string };

  beforeAll(async () => {
    await Promise.all([x.start(), pinterest.start(), site.start(), receiver.start()]);
    const port = await freePort();
    t = await TestApp.start({
      port,
      env: {
        ...x.appEnv(),
        ...pinterest.appEnv(),
        PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
        WEBHOOK_SWEEP_INTERVAL_MS: '300',
      },
    });
    ws = await t.createWorkspace();
    other = await t.createWorkspace();
    const sub = await t.request('POST', '/api/webhooks', {
      key: ws.key,
      body: { url: receiver.url('/platform'), events: ['channel.connected'] },
    });
    expect(sub.status).toBe(201);
    hook = sub.body;
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await Promise.all([x.stop(), pinterest.stop(), site.stop(), receiver.stop()]);
  });

  const createLink = (body: Record<string, unknown>, key = ws.key) =>
    t.request('POST', '/api/connect-links', { key, body: { redirectUrl: `${site.base}/done`, ...body } });
  const channelIds = async (workspaceId = ws.workspaceId): Promise<string[]> =>
    (
      await t.dataSource.query<Array<{ id: string }>>('SELECT id FROM channels WHERE workspace_id = $1', [workspaceId])
    ).map((r) => r.id);
  const arrivalFor = (linkId: string) => site.arrivals.filter((u) => u.searchParams.get('connectLinkId') === linkId);
  /** The link's sandbox form in a browser-less client: its CSRF field and cookie. */
  const sandboxForm = async (url: string) => {
    const res = await fetch(`${url}/sandbox`, { redirect: 'manual' });
    expect(res.status).toBe(200);
    const csrf = /name="_csrf" value="([^"]+)"/.exec(await res.text())![1];
    const cookie = res.headers.get('set-cookie')!.split(';')[0];
    return { csrf, cookie };
  };
  const postForm = (url: string, cookie: string, fields: Record<string, string>) =>
    fetch(url, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
      body: new URLSearchParams(fields).toString(),
    });

  describe('the API', () => {
    it('makes a link on PUBLIC_BASE_URL offering every enabled network and the sandbox by default', async () => {
      const res = await createLink({ brandName: 'Acme' });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        id: expect.any(String),
        url: expect.stringMatching(new RegExp(`^${t.baseUrl}/connect/cl_[A-Za-z0-9_-]{43}$`)),
        providers: expect.arrayContaining(['sandbox', 'mastodon', 'bluesky', 'x']),
        redirectUrl: `${site.base}/done`,
        brandName: 'Acme',
        status: 'active',
        expiresAt: expect.any(String),
        revokedAt: null,
        createdAt: expect.any(String),
      });
      // OAuth networks without an app on this server are not offered.
      expect(res.body.providers).not.toContain('linkedin');
      const lifetime = new Date(res.body.expiresAt).getTime() - new Date(res.body.createdAt).getTime();
      expect(Math.abs(lifetime - 3600_000)).toBeLessThan(5_000);

      const got = await t.request('GET', `/api/connect-links/${res.body.id}`, { key: ws.key });
      expect(got.status).toBe(200);
      expect(got.body).toEqual({ ...res.body, url: undefined });
      expect(got.body).not.toHaveProperty('url');
      const listed = await t.request('GET', '/api/connect-links?limit=100', { key: ws.key });
      expect(listed.body.data.map((l: { id: string }) => l.id)).toContain(res.body.id);
      // The token is stored hashed only.
      const stored = JSON.stringify(
        await t.dataSource.query('SELECT * FROM connect_links WHERE id = $1', [res.body.id]),
      );
      expect(stored).not.toContain(new URL(res.body.url).pathname.split('/')[2]);
    });

    it('refuses unknown networks by name, bad lifetimes and non-https redirect URLs', async () => {
      const unknown = await createLink({ providers: ['sandbox', 'myspace'] });
      expect(unknown.status).toBe(400);
      expect(unknown.body.message).toContain('myspace');
      const disabled = await createLink({ providers: ['linkedin'] });
      expect(disabled.status).toBe(400);
      expect(disabled.body.message).toContain('linkedin not enabled');
      for (const expiresInSeconds of [299, 604_801]) {
        expect((await createLink({ expiresInSeconds })).status).toBe(400);
      }
      expect((await createLink({ redirectUrl: 'http://platform.example.com/done' })).status).toBe(400);
      expect((await createLink({ redirectUrl: 'https://platform.example.com/done' })).status).toBe(201);
    });

    it('keeps links to their workspace and revokes with 204', async () => {
      const link = (await createLink({ providers: ['sandbox'] })).body;
      expect((await t.request('GET', `/api/connect-links/${link.id}`, { key: other.key })).status).toBe(404);
      expect((await t.request('DELETE', `/api/connect-links/${link.id}`, { key: other.key })).status).toBe(404);
      expect((await t.request('DELETE', `/api/connect-links/${link.id}`, { key: ws.key })).status).toBe(204);
      const got = await t.request('GET', `/api/connect-links/${link.id}`, { key: ws.key });
      expect(got.body).toEqual(expect.objectContaining({ status: 'revoked', revokedAt: expect.any(String) }));
      expect((await t.request('DELETE', `/api/connect-links/${link.id}`, { key: ws.key })).status).toBe(204);
    });
  });

  describe('the hosted page in Chromium', () => {
    let page: Page;
    afterEach(async () => page?.context().close());

    it('connects a sandbox account and returns to the redirect URL with the channel id; channel.connected is delivered signed', async () => {
      const link = (await createLink({ brandName: 'Acme Social', providers: ['sandbox', 'mastodon', 'x'] })).body;
      page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
      page.setDefaultTimeout(5_000);
      const landing = await page.goto(link.url);
      expect(landing!.status()).toBe(200);
      expect(landing!.headers()['content-security-policy']).toContain("default-src 'none'");
      await expect(page.getByTestId('brand-name').textContent()).resolves.toBe('Acme Social');
      const tiles = page.getByTestId('network-tile');
      expect(await tiles.evaluateAll((els) => els.map((e) => e.getAttribute('data-network')))).toEqual([
        'sandbox',
        'mastodon',
        'x',
      ]);
      await screenshot(page, 'connect-link-desktop');
      await page.locator('[data-network="sandbox"]').click();
      await page.locator('input[name="credentials.name"]').fill('Acme test account');
      await screenshot(page, 'connect-link-sandbox-desktop');
      await Promise.all([
        page.waitForURL(`${site.base}/done?**`),
        page.getByRole('button', { name: 'Connect Sandbox' }).click(),
      ]);

      const back = new URL(page.url());
      expect(back.searchParams.get('connectLinkId')).toBe(link.id);
      expect(back.searchParams.get('status')).toBe('connected');
      const channelId = back.searchParams.get('channelId')!;
      const channel = await t.request('GET', `/api/channels/${channelId}`, { key: ws.key });
      expect(channel.status).toBe(200);
      expect(channel.body).toEqual(expect.objectContaining({ provider: 'sandbox', name: 'Acme test account' }));

      const delivered = await receiver.waitForCount('/platform', 1);
      const event = delivered.map((d) => JSON.parse(d.body)).find((e) => e.data.channelId === channelId);
      expect(event).toEqual({
        id: expect.any(String),
        type: 'channel.connected',
        timestamp: expect.any(String),
        workspaceId: ws.workspaceId,
        data: { channelId, provider: 'sandbox', workspaceId: ws.workspaceId },
      });
      const signed = delivered.find((d) => JSON.parse(d.body).id === event.id)!;
      expect(new StandardWebhook(hook.secret).verify(signed.body, signed.headers as Record<string, string>)).toEqual(
        event,
      );
      const events = await t.request('GET', '/api/events?type=channel.connected', { key: ws.key });
      expect(events.status).toBe(200);
      expect(events.body.data).toContainEqual(event);
    });

    it('fits a 390 px phone', async () => {
      const link = (await createLink({ brandName: 'Acme Social' })).body;
      page = await (await browser.newContext({ viewport: { width: 390, height: 844 } })).newPage();
      page.setDefaultTimeout(5_000);
      await page.goto(link.url);
      await expectFitsWidth(page, [page.getByTestId('network-tile'), page.getByTestId('cancel')]);
      await screenshot(page, 'connect-link-phone');
      await page.locator('[data-network="sandbox"]').click();
      await expectFitsWidth(page, [page.getByRole('button', { name: 'Connect Sandbox' })]);
      await screenshot(page, 'connect-link-sandbox-phone');
    });

    it('runs an OAuth network (X, through its fake) and comes back to the redirect URL with the channel id', async () => {
      const link = (await createLink({ providers: ['x'] })).body;
      page = await (await browser.newContext()).newPage();
      page.setDefaultTimeout(5_000);
      await page.goto(link.url);
      await page.locator('[data-network="x"]').click();
      await Promise.all([page.waitForURL(`${site.base}/done?**`), page.getByTestId('oauth-start').click()]);
      const back = new URL(page.url());
      expect(Object.fromEntries(back.searchParams)).toEqual({
        connectLinkId: link.id,
        status: 'connected',
        channelId: expect.any(String),
      });
      const channel = await t.request('GET', `/api/channels/${back.searchParams.get('channelId')}`, { key: ws.key });
      expect(channel.body).toEqual(expect.objectContaining({ provider: 'x', handle: '@contract_x', status: 'active' }));
    });

    it('lets the person choose among the accounts an authorization reaches (Pinterest boards) on the link', async () => {
      const link = (await createLink({ brandName: 'Acme Social', providers: ['pinterest'] })).body;
      page = await (await browser.newContext({ viewport: { width: 390, height: 844 } })).newPage();
      page.setDefaultTimeout(5_000);
      await page.goto(link.url);
      await page.locator('[data-network="pinterest"]').click();
      await Promise.all([page.waitForURL('**/connect/choose/**'), page.getByTestId('oauth-start').click()]);
      const choices = page.getByTestId('target-choice');
      await expect(choices.allTextContents()).resolves.toEqual([
        expect.stringContaining('Recipes'),
        expect.stringContaining('Travel'),
        expect.stringContaining('Garden'),
      ]);
      await expectFitsWidth(page, [page.getByRole('button', { name: 'Connect selected' })]);
      await screenshot(page, 'connect-link-choose-phone');
      await choices.nth(2).locator('input').check();
      await Promise.all([
        page.waitForURL(`${site.base}/done?**`),
        page.getByRole('button', { name: 'Connect selected' }).click(),
      ]);
      const back = new URL(page.url());
      expect(back.searchParams.get('connectLinkId')).toBe(link.id);
      expect(back.searchParams.get('status')).toBe('connected');
      const ids = back.searchParams.getAll('channelId');
      expect(ids).toHaveLength(2);
      const names = await Promise.all(
        ids.map(async (id) => (await t.request('GET', `/api/channels/${id}`, { key: ws.key })).body.name),
      );
      expect(names).toEqual(['Recipes', 'Garden']);
      // The choice page belongs to the browser that started the authorization.
      expect((await fetch(`${t.baseUrl}/connect/choose/${ids[0]}`)).status).toBe(404);
    });

    it('shows a revoked and an expired link as such (410) and connects nothing', async () => {
      const revoked = (await createLink({ providers: ['sandbox'] })).body;
      const expired = (await createLink({ providers: ['sandbox'], expiresInSeconds: 300 })).body;
      const forms = await Promise.all([sandboxForm(revoked.url), sandboxForm(expired.url)]);
      expect((await t.request('DELETE', `/api/connect-links/${revoked.id}`, { key: ws.key })).status).toBe(204);
      await t.dataSource.query(`UPDATE connect_links SET expires_at = now() - interval '1 second' WHERE id = $1`, [
        expired.id,
      ]);
      const before = await channelIds();
      page = await (await browser.newContext()).newPage();
      for (const [link, word] of [
        [revoked, 'revoked'],
        [expired, 'expired'],
      ] as const) {
        const res = await page.goto(link.url);
        expect(res!.status()).toBe(410);
        await expect(page.getByTestId('message-title').textContent()).resolves.toBe('This link can no longer be used');
        await expect(page.locator('main').textContent()).resolves.toContain(word);
      }
      await screenshot(page, 'connect-link-expired');
      // A form fetched before the revocation or the expiry connects nothing either.
      for (const [link, form] of [
        [revoked, forms[0]],
        [expired, forms[1]],
      ] as const) {
        const res = await postForm(`${link.url}/sandbox`, form.cookie, {
          _csrf: form.csrf,
          'credentials.name': 'Too late',
        });
        expect(res.status).toBe(410);
      }
      expect(await channelIds()).toEqual(before);
      expect(arrivalFor(revoked.id)).toEqual([]);
    });

    it('connects nothing when the link is revoked between the OAuth start and the callback', async () => {
      const link = (await createLink({ providers: ['x'] })).body;
      const form = await fetch(`${link.url}/x`);
      const csrf = /name="_csrf" value="([^"]+)"/.exec(await form.text())![1];
      const cookie = form.headers.get('set-cookie')!.split(';')[0];
      const started = await postForm(`${link.url}/x`, cookie, { _csrf: csrf });
      expect(started.status).toBe(303);
      const authorizationUrl = started.headers.get('location')!;
      expect(authorizationUrl.startsWith(x.baseUrl)).toBe(true);
      expect((await t.request('DELETE', `/api/connect-links/${link.id}`, { key: ws.key })).status).toBe(204);
      const before = await channelIds();
      const callback = await x.consent(authorizationUrl);
      const res = await fetch(`${t.baseUrl}${pathOf(callback)}`, { redirect: 'manual' });
      expect(res.status).toBe(410);
      expect(await res.text()).toContain('revoked or has expired');
      expect(await channelIds()).toEqual(before);
    });
  });

  describe('the hosted page without a browser', () => {
    it('refuses a form without its CSRF token, or with the token of another link', async () => {
      const [a, b] = [
        (await createLink({ providers: ['sandbox'] })).body,
        (await createLink({ providers: ['sandbox'] })).body,
      ];
      const formA = await sandboxForm(a.url);
      const before = await channelIds();
      expect((await postForm(`${a.url}/sandbox`, formA.cookie, { 'credentials.name': 'No token' })).status).toBe(403);
      const crossed = await postForm(`${b.url}/sandbox`, formA.cookie, { _csrf: formA.csrf, 'credentials.name': 'X' });
      expect(crossed.status).toBe(403);
      expect(await channelIds()).toEqual(before);
    });

    it("answers 404 for an unknown token, with the hosted pages' headers", async () => {
      const res = await fetch(`${t.baseUrl}/connect/cl_${'A'.repeat(43)}`);
      expect(res.status).toBe(404);
      expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    });

    it('sends back `status=error&error=cancelled` when the person cancels', async () => {
      const link = (await createLink({ providers: ['sandbox'] })).body;
      const res = await fetch(`${link.url}/cancel`, { redirect: 'manual' });
      expect(res.status).toBe(303);
      const to = new URL(res.headers.get('location')!);
      expect(Object.fromEntries(to.searchParams)).toEqual({
        connectLinkId: link.id,
        status: 'error',
        error: 'cancelled',
      });
    });

    it('emits channel.connected for a connection through the API too', async () => {
      const res = await t.request('POST', '/api/channels', {
        key: ws.key,
        body: { provider: 'sandbox', credentials: { name: 'Through the API' } },
      });
      expect(res.status).toBe(201);
      const events = await t.request('GET', '/api/events?type=channel.connected', { key: ws.key });
      expect(events.body.data[0]).toEqual(
        expect.objectContaining({
          type: 'channel.connected',
          data: { channelId: res.body.id, provider: 'sandbox', workspaceId: ws.workspaceId },
        }),
      );
    });
  });

  describe('the console', () => {
    it('lists the links of the workspace with their status and revokes one', async () => {
      const link = (await createLink({ brandName: 'Console listed', providers: ['sandbox'] })).body;
      const { context, page } = await consoleSession(t, browser, {
        workspaceId: ws.workspaceId,
        email: 'owner@example.com',
      });
      try {
        await page.goto(`${t.baseUrl}/console/connect-links`);
        const row = page.locator(`[data-testid="connect-link-row"][data-id="${link.id}"]`);
        await expect(row.getByTestId('link-status').textContent()).resolves.toBe('active');
        await screenshot(page, 'console-connect-links');
        await row.getByTestId('revoke-link').click();
        await page.getByTestId('confirm-action').click();
        await page.waitForURL('**/console/connect-links');
        await expect(row.getByTestId('link-status').textContent()).resolves.toBe('revoked');
        expect((await fetch(link.url)).status).toBe(410);
      } finally {
        await context.close();
      }
    });
  });
});
