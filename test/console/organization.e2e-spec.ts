import { Browser } from 'playwright-core';
import { OrganizationsService } from '../../src/auth/organizations.service';
import { TestApp } from '../support/test-app';
import { expectFitsWidth, launchChromium, screenshot } from './browser';
import { consoleSession } from './console-session';

/**
 * The organization page (docs/adr/0052): the owners of the organization's first workspace see every
 * workspace of the organization with its usage, on a 390 px phone too; an owner of a customer's
 * workspace sees none of the others, and a member is refused.
 */
describe('console: the organization page', () => {
  const PHONE_390 = { width: 390, height: 844 };
  let t: TestApp;
  let browser: Browser;
  let org: { organizationId: string; workspaceId: string; key: string };
  let customer: string;

  beforeAll(async () => {
    t = await TestApp.start();
    browser = await launchChromium();
    org = await t.app.get(OrganizationsService).create('Console Platform');
    const made = await t.request('POST', '/api/workspaces', {
      key: org.key,
      body: { name: 'Customer with a fairly long workspace name', externalId: 'customer-0001' },
    });
    customer = made.body.id;
    await t.request('POST', '/api/workspaces', { key: org.key, body: { name: 'Quiet customer' } });
    const acting = { key: org.key, headers: { 'x-workspace-id': customer } };
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
      await page.getByRole('heading', { name: 'Console Platform' }).waitFor();
      const rows = page.getByTestId('workspace-row');
      expect(await rows.count()).toBe(3);
      const row = rows.filter({ hasText: 'Customer with a fairly long workspace name' });
      await expect(row.locator('td[data-label="External id"]').textContent()).resolves.toContain('customer-0001');
      await expect(row.locator('td[data-label="Posts"]').textContent()).resolves.toContain('1');
      await screenshot(page, 'phone-organization');
      await expectFitsWidth(page, [row.locator('td'), page.getByRole('button', { name: 'Show' })]);

      await page.getByLabel('Window').selectOption('7');
      await page.getByRole('button', { name: 'Show' }).click();
      await page.waitForURL('**/console/organization?days=7');
      expect(await page.getByTestId('workspace-row').count()).toBe(3);
    } finally {
      await context.close();
    }
  });

  it("shows a customer workspace's owner nothing of the others, and refuses a member", async () => {
    const owner = await consoleSession(t, browser, { workspaceId: customer, email: 'customer-owner@example.com' });
    try {
      const res = await owner.page.goto(`${t.baseUrl}/console/organization`);
      expect(res!.status()).toBe(200);
      expect(await owner.page.getByTestId('workspace-row').count()).toBe(0);
      await expect(owner.page.locator('main').textContent()).resolves.not.toContain('Quiet customer');
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
