import { Browser, Page } from 'playwright-core';
import { TestApp } from '../support/test-app';
import { expectFitsWidth, launchChromium, screenshot } from './browser';
import { consoleSession } from './console-session';

const PHONE_390 = { width: 390, height: 844 };
const DAY = 86_400_000;

/**
 * The calendar: a week and a month across channels with the posting slots and the posts, filters,
 * and moving a scheduled post to another slot, by its form (no script) and by drag and drop.
 */
describe('console: the calendar', () => {
  let t: TestApp;
  let browser: Browser;
  let page: Page;
  let ws: { workspaceId: string; key: string };
  let channelId: string;
  let postId: string;
  /** Monday of next week, 00:00 UTC. */
  let monday: number;

  const iso = (ms: number) => new Date(ms).toISOString();
  const day = (ms: number) => iso(ms).slice(0, 10);
  const getPost = async () => (await t.request('GET', `/api/posts/${postId}`, { key: ws.key })).body;

  beforeAll(async () => {
    t = await TestApp.start();
    ws = await t.createWorkspace('calendar');
    channelId = await t.connectChannel(ws.key, 'sandbox', { name: 'Calendar' });
    const slots = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'].flatMap((d) => [
      { day: d, time: '09:00' },
      { day: d, time: '15:00' },
    ]);
    const put = await t.request('PUT', `/api/channels/${channelId}/schedule`, {
      key: ws.key,
      body: { timezone: 'UTC', slots },
    });
    expect(put.status).toBe(200);
    const today = Math.floor(Date.now() / DAY) * DAY;
    monday = today - ((new Date(today).getUTCDay() + 6) % 7) * DAY + 7 * DAY;
    const created = await t.request('POST', '/api/posts', {
      key: ws.key,
      body: { content: 'On the calendar', channelIds: [channelId], scheduledAt: iso(monday + 9 * 3_600_000) },
    });
    expect(created.body.status).toBe('scheduled');
    postId = created.body.id;
    browser = await launchChromium();
    ({ page } = await consoleSession(t, browser, { workspaceId: ws.workspaceId, email: 'owner@calendar.example' }));
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('shows the week with the slots and the post, and moves it to another slot with its form', async () => {
    await page.goto(`${t.baseUrl}/console/calendar?view=week&date=${day(monday)}`);
    expect(await page.getByTestId('calendar-day').count()).toBe(7);
    expect(await page.getByTestId('calendar-slot').count()).toBe(14);
    const post = page.getByTestId('calendar-post').filter({ hasText: 'On the calendar' });
    expect(await post.count()).toBe(1);
    await screenshot(page, 'calendar-week-desktop');
    const target = iso(monday + DAY + 15 * 3_600_000);
    await post.locator('summary').click();
    await post.getByTestId('move-slot').selectOption(target);
    await post.getByRole('button', { name: 'Move post' }).click();
    await page.waitForURL('**/console/calendar?**');
    expect(await page.getByRole('status').textContent()).toContain('Moved');
    expect((await getPost()).scheduledAt).toBe(target);
    const tuesday = page.locator(`[data-date="${day(monday + DAY)}"]`);
    expect(await tuesday.getByTestId('calendar-post').count()).toBe(1);
  });

  it('moves a post by dragging it onto a slot', async () => {
    await page.goto(`${t.baseUrl}/console/calendar?view=week&date=${day(monday)}`);
    const target = iso(monday + 2 * DAY + 9 * 3_600_000);
    const post = page.getByTestId('calendar-post').filter({ hasText: 'On the calendar' });
    await post.dragTo(page.locator(`[data-drop-at="${target}"]`));
    await page.waitForURL('**/console/calendar?**');
    await page.getByRole('status').waitFor();
    expect((await getPost()).scheduledAt).toBe(target);
  });

  it('shows the month, filters by status, and fits a 390 px phone', async () => {
    await page.goto(`${t.baseUrl}/console/calendar?view=month&date=${day(monday)}`);
    expect(await page.getByTestId('calendar-day').count()).toBeGreaterThanOrEqual(28);
    expect(await page.getByTestId('calendar-post').count()).toBe(1);
    await screenshot(page, 'calendar-month-desktop');
    await page.goto(`${t.baseUrl}/console/calendar?view=month&date=${day(monday)}&status=published`);
    expect(await page.getByTestId('calendar-post').count()).toBe(0);
    const phone = await consoleSession(t, browser, {
      workspaceId: ws.workspaceId,
      email: 'phone@calendar.example',
      viewport: PHONE_390,
    });
    await phone.page.goto(`${t.baseUrl}/console/calendar?view=week&date=${day(monday)}`);
    await expectFitsWidth(phone.page, [phone.page.getByTestId('calendar-post')]);
    await screenshot(phone.page, 'calendar-week-390');
    await phone.page.goto(`${t.baseUrl}/console/calendar?view=month&date=${day(monday)}`);
    await expectFitsWidth(phone.page);
    await screenshot(phone.page, 'calendar-month-390');
    await phone.context.close();
  });
});
