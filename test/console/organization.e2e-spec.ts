import { Browser, Locator } from 'playwright-core';
import { OrganizationsService } from '../../src/auth/organizations.service';
import { TestApp } from '../support/test-app';
import { expectFitsWidth, launchChromium, screenshot } from './browser';
import { consoleSession } from './console-session';

/**
 * The organization page (docs/adr/0052): the owners of the organization's first workspace see every
 * workspace of the organization with its usage and the connect links made in it (status, networks,
 * expiry; shown only), at desktop width and on a 390 px phone; an owner of a customer's workspace sees
 * none of the others, and a member is refused.
 */
describe('console: the organization page', () => {
  const PHONE_390 = { width: 390, height: 844 };
  let t: TestApp;
  let browser: Browser;
  let org: { organizationId: string; workspaceId: string; key: string };
  let customer: string;
  let quiet: string;
  let activeLink: string;
  let revokedLink: string;

  beforeAll(async () => {
    t = await TestApp.start();
    browser = await launchChromium();
    org = await t.app.get(OrganizationsService).create('Console Platform');
    const made = await t.request('POST', '/api/workspaces', {
      key: org.key,
      body: { name: 'Customer with a fairly long workspace name', externalId: 'customer-0001' },
    });
    customer = made.body.id;
    quiet = (await t.request('POST', '/api/workspaces', { key: org.key, body: { name: 'Quiet customer' } })).body.id;
    const acting = { key: org.key, headers: { 'x-workspace-id': customer } };
    const link = (body: Record<string, unknown>) =>
      t.request('POST', '/api/connect-links', {
        ...acting,
        body: { redirectUrl: 'http://127.0.0.1:9/done', ...body },
      });
    const active = await link({ providers: ['sandbox', 'mastodon'], brandName: 'Acme', expiresInSeconds: 7200 });
    expect(active.status).toBe(201);
    activeLink = active.body.id;
    revokedLink = (await link({ providers: ['bluesky'] })).body.id;
    expect((await t.request('DELETE', `/api/connect-links/${revokedLink}`, acting)).status).toBe(204);
    const channel = await t.request('POST', '/api/channels', {
      ...acting,
      body: { provider: 'sandbox', credentials: { name: 'Customer sandbox' } },
    });
    const draft = await t.request('POST', '/api/posts', {
      ...acting,
      body: { content: 'A draft of the customer', channelIds: [channel.body.id] },
    });
    expect(draft.status).toBe(201);
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('shows the organization owner every workspace and its usage, fitting a 390 px phone', async () => {
    const { context, page } = await consoleSession(t, browser, {
      workspaceId: org.workspaceId,
      email: 'org-owner@example.com',
      viewport: PHONE_390,
    });
    try {
      const res = await page.goto(`${t.baseUrl}/console/organization`);
      expect(res!.status()).toBe(200);
      const csp = res!.headers()['content-security-policy'];
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toContain('unsafe-inline');
      await page.getByRole('heading', { name: 'Console Platform', level: 1 }).waitFor();
      const rows = page.getByTestId('workspace-row');
      expect(await rows.count()).toBe(3);
      const row = rows.filter({ hasText: 'Customer with a fairly long workspace name' });
      await expect(row.locator('td[data-label="External id"]').textContent()).resolves.toContain('customer-0001');
      await expect(row.locator('td[data-label="Posts"]').textContent()).resolves.toContain('1');
      await screenshot(page, 'phone-organization');
      await expectFitsWidth(page, [row.locator('td'), page.getByRole('button', { name: 'Show' })]);

      const links = page.locator(`[data-testid="workspace-links"][data-workspace-id="${customer}"]`);
      await expectCustomerLinks(links);
      await links.scrollIntoViewIfNeeded();
      await screenshot(page, 'phone-organization-links');
      await expectFitsWidth(page, [links.getByTestId('org-connect-link').first().locator('td')]);

      await page.getByLabel('Window').selectOption('7');
      await page.getByRole('button', { name: 'Show' }).click();
      await page.waitForURL('**/console/organization?days=7');
      expect(await page.getByTestId('workspace-row').count()).toBe(3);
    } finally {
      await context.close();
    }
  });

  it('shows the connect links of each workspace at desktop width, without a way to revoke them there', async () => {
    const { context, page } = await consoleSession(t, browser, {
      workspaceId: org.workspaceId,
      email: 'org-owner-desktop@example.com',
      viewport: { width: 1280, height: 900 },
    });
    try {
      const res = await page.goto(`${t.baseUrl}/console/organization`);
      expect(res!.status()).toBe(200);
      await page.getByRole('heading', { name: 'Connect links' }).waitFor();
      expect(await page.getByTestId('workspace-links').count()).toBe(3);
      await expectCustomerLinks(page.locator(`[data-testid="workspace-links"][data-workspace-id="${customer}"]`));
      const none = page.locator(`[data-testid="workspace-links"][data-workspace-id="${quiet}"]`);
      await expect(none.textContent()).resolves.toContain('No connect link.');
      expect(await page.getByRole('button', { name: /Revoke/ }).count()).toBe(0);
      expect(await page.getByRole('link', { name: /Revoke/ }).count()).toBe(0);
      await screenshot(page, 'desktop-organization');
      await expectFitsWidth(page);
    } finally {
      await context.close();
    }
  });

  /** The text a person sees in the element, without the markup's surrounding spaces. */
  const shown = async (locator: Locator): Promise<string> => (await locator.innerText()).trim();

  /** The customer's two links, newest first: the revoked one (made last), then the active one with its networks, brand and expiry. */
  async function expectCustomerLinks(links: Locator): Promise<void> {
    expect(await shown(links.getByRole('heading'))).toBe('Customer with a fairly long workspace name');
    const rows = links.getByTestId('org-connect-link');
    expect(await rows.evaluateAll((els) => els.map((e) => e.getAttribute('data-id')))).toEqual([
      revokedLink,
      activeLink,
    ]);
    const active = links.locator(`[data-id="${activeLink}"]`);
    expect(await shown(active.getByTestId('link-status'))).toBe('active');
    expect(await shown(active.locator('td[data-label="Networks"]'))).toBe('Sandbox, Mastodon');
    expect(await shown(active.locator('td[data-label="Brand"]'))).toBe('Acme');
    const { expiresAt } = (
      await t.request('GET', `/api/connect-links/${activeLink}`, {
        key: org.key,
        headers: { 'x-workspace-id': customer },
      })
    ).body;
    const expiry = `${expiresAt.slice(0, 10)} ${expiresAt.slice(11, 16)} UTC`;
    expect(await shown(active.locator('td[data-label="Expires"]'))).toContain(expiry);
    const revoked = links.locator(`[data-id="${revokedLink}"]`);
    expect(await shown(revoked.getByTestId('link-status'))).toBe('revoked');
    expect(await shown(revoked.locator('td[data-label="Networks"]'))).toBe('Bluesky');
    expect(await shown(revoked.locator('td[data-label="Revoked"]'))).toMatch(/\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC/);
  }

  it("shows a customer workspace's owner nothing of the others, and refuses a member", async () => {
    const owner = await consoleSession(t, browser, { workspaceId: customer, email: 'customer-owner@example.com' });
    try {
      const res = await owner.page.goto(`${t.baseUrl}/console/organization`);
      expect(res!.status()).toBe(200);
      expect(await owner.page.getByTestId('workspace-row').count()).toBe(0);
      await expect(owner.page.locator('main').textContent()).resolves.not.toContain('Quiet customer');
      expect(await owner.page.getByTestId('org-connect-link').count()).toBe(0);
    } finally {
      await owner.context.close();
    }
    const member = await consoleSession(t, browser, {
      workspaceId: org.workspaceId,
      email: 'org-member@example.com',
      role: 'member',
    });
    try {
      const res = await member.page.goto(`${t.baseUrl}/console/organization`);
      expect(res!.status()).toBe(403);
    } finally {
      await member.context.close();
    }
  });
});
