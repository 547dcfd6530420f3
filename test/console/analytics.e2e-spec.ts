import { Browser, Page } from 'playwright-core';
import { FAST_PUBLISHING_ENV, waitFor } from '../support/publishing-env';
import { TestApp } from '../support/test-app';
import { expectFitsWidth, launchChromium, screenshot } from './browser';
import { consoleSession } from './console-session';

const PHONE_390 = { width: 390, height: 844 };

/** The analytics page: an SVG chart per channel with its figures in a table, and the posts published. */
describe('console: analytics you can see', () => {
  let t: TestApp;
  let browser: Browser;
  let page: Page;
  let ws: { workspaceId: string; key: string };
  let postId: string;

  beforeAll(async () => {
    t = await TestApp.start({ env: FAST_PUBLISHING_ENV });
    ws = await t.createWorkspace('analytics-console');
    const a = await t.connectChannel(ws.key, 'sandbox', { name: 'Charted one' });
    await t.connectChannel(ws.key, 'sandbox', { name: 'Charted two' });
    const created = await t.request('POST', '/api/posts', {
      key: ws.key,
      body: { content: 'Counted post', channelIds: [a], publishNow: true },
    });
    postId = created.body.id;
    await waitFor(
      async () => (await t.request('GET', `/api/posts/${postId}`, { key: ws.key })).body.status,
      (s) => s === 'published',
      30_000,
    );
    browser = await launchChromium();
    ({ page } = await consoleSession(t, browser, { workspaceId: ws.workspaceId, email: 'owner@analytics.example' }));
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('draws an SVG per channel beside a table of its figures, and lists the published posts', async () => {
    await page.goto(`${t.baseUrl}/console/analytics`);
    const sections = page.getByTestId('channel-analytics');
    expect(await sections.count()).toBe(2);
    for (let i = 0; i < 2; i++) {
      const chart = sections.nth(i).locator('svg[role="img"]');
      expect(await chart.count()).toBe(1);
      const tableId = (await chart.getAttribute('aria-describedby'))!;
      expect(await sections.nth(i).locator(`table#${tableId}`).count()).toBe(1);
      // 30 days drawn: a point per day of the posts series at least.
      expect(await chart.locator('g[data-series="posts"] circle').count()).toBe(30);
    }
    expect(await sections.first().locator('table tr').filter({ hasText: 'Total' }).count()).toBe(1);
    expect(await page.getByTestId('post-analytics-row').filter({ hasText: 'Counted post' }).count()).toBe(1);
    expect(await page.getByTestId('posts-chart').locator('rect').count()).toBe(1);
    await screenshot(page, 'analytics-desktop');
  });

  it('fits a 390 px phone', async () => {
    const phone = await consoleSession(t, browser, {
      workspaceId: ws.workspaceId,
      email: 'phone@analytics.example',
      viewport: PHONE_390,
    });
    await phone.page.goto(`${t.baseUrl}/console/analytics`);
    await expectFitsWidth(phone.page, [phone.page.getByTestId('channel-chart')]);
    await screenshot(phone.page, 'analytics-390');
    await phone.context.close();
  });
});
