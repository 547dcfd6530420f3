import { Browser, Page } from 'playwright-core';
import { TestApp } from '../support/test-app';
import { PHONE, expectFitsWidth, launchChromium, screenshot } from './browser';
import { consoleSession } from './console-session';

/** The local date (YYYY-MM-DD) and time (HH:MM) of an instant in a zone, read the way a person would. */
function localOf(instant: string, timeZone: string): { date: string; time: string } {
  const text = new Date(instant).toLocaleString('sv-SE', { timeZone, hour12: false }); // 2026-11-30 09:00:00
  return { date: text.slice(0, 10), time: text.slice(11, 16) };
}

/**
 * A channel's posting schedule in the console: the editor (time zone, slots per weekday) saves what
 * `GET /api/channels/{id}/schedule` then answers, and the week view shows a queued post at its local
 * time among the free slots.
 */
describe('console: posting schedule editor and week view', () => {
  let t: TestApp;
  let browser: Browser;
  let page: Page;
  let ws: { workspaceId: string; key: string };
  let channelId: string;

  beforeAll(async () => {
    t = await TestApp.start();
    ws = await t.createWorkspace('schedule-console');
    channelId = await t.connectChannel(ws.key, 'sandbox', { name: 'Queue sandbox' });
    browser = await launchChromium();
    ({ page } = await consoleSession(t, browser, { workspaceId: ws.workspaceId, email: 'queue@example.com' }));
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  const schedule = async () =>
    (await t.request('GET', `/api/channels/${channelId}/schedule`, { key: ws.key })).body as {
      timezone: string | null;
      slots: Array<{ day: string; time: string }>;
    };

  it('edits the schedule: a time zone and times on chosen weekdays, then a slot removed and one added', async () => {
    await page.goto(`${t.baseUrl}/console/channels`);
    await page.getByRole('link', { name: 'Posting schedule of Queue sandbox' }).click();
    await page.waitForURL(`**/console/channels/${channelId}/schedule`);
    expect(await page.getByRole('heading', { name: 'Posting schedule of Queue sandbox' }).isVisible()).toBe(true);
    expect(await page.getByTestId('no-slots').isVisible()).toBe(true);

    await page.getByLabel(/^Time zone/).fill('Europe/Berlin');
    for (const day of ['Mon', 'Tue', 'Wed', 'Thu', 'Fri']) await page.getByLabel(day, { exact: true }).check();
    await page.getByLabel('Time', { exact: true }).fill('09:00');
    await page.getByRole('button', { name: 'Save schedule' }).click();
    await page.waitForURL(`**/console/channels/${channelId}/schedule`);
    expect(await page.getByRole('status').textContent()).toContain(
      'Schedule saved: 5 slots a week, Europe/Berlin time.',
    );
    expect(await schedule()).toMatchObject({
      timezone: 'Europe/Berlin',
      slots: ['mon', 'tue', 'wed', 'thu', 'fri'].map((day) => ({ day, time: '09:00' })),
    });

    // Untick Friday 09:00, add Monday 17:30.
    await page.getByLabel('Fri 09:00').uncheck();
    await page.getByLabel('Mon', { exact: true }).check();
    await page.getByLabel('Time', { exact: true }).fill('17:30');
    await page.getByRole('button', { name: 'Save schedule' }).click();
    await page.waitForURL(`**/console/channels/${channelId}/schedule`);
    expect((await schedule()).slots).toEqual([
      { day: 'mon', time: '09:00' },
      { day: 'mon', time: '17:30' },
      { day: 'tue', time: '09:00' },
      { day: 'wed', time: '09:00' },
      { day: 'thu', time: '09:00' },
    ]);
    expect(await page.getByLabel('Mon 17:30').isChecked()).toBe(true);
    expect(await page.getByLabel('Fri 09:00').count()).toBe(0);
    expect(await page.getByLabel(/^Time zone/).inputValue()).toBe('Europe/Berlin');
    await screenshot(page, 'schedule-editor');
  });

  it('refuses a time zone the server does not know, and keeps the schedule', async () => {
    await page.goto(`${t.baseUrl}/console/channels/${channelId}/schedule`);
    await page.getByLabel(/^Time zone/).fill('Mars/Olympus_Mons');
    await page.getByRole('button', { name: 'Save schedule' }).click();
    await page.waitForURL(`**/console/channels/${channelId}/schedule`);
    const alert = await page.getByRole('alert').textContent();
    expect(alert).toContain('The schedule was not saved');
    expect(alert).toContain('timezone must be an IANA time zone name');
    expect((await schedule()).timezone).toBe('Europe/Berlin');
    // A time without days is refused too.
    await page.getByLabel('Time', { exact: true }).fill('12:00');
    await page.getByRole('button', { name: 'Save schedule' }).click();
    await page.waitForURL(`**/console/channels/${channelId}/schedule`);
    expect(await page.getByRole('alert').textContent()).toContain('Choose the days to add the time to.');
    expect((await schedule()).slots).toHaveLength(5);
  });

  it('shows a queued post at its local time in the week view, among the free slots', async () => {
    const created = await t.request('POST', '/api/posts', {
      key: ws.key,
      body: { content: 'Queued from the API for the week view', channelIds: [channelId], queue: true },
    });
    expect(created.status).toBe(201);
    expect(created.body.queued).toBe(true);
    const local = localOf(created.body.scheduledAt, 'Europe/Berlin');
    expect(['09:00', '17:30']).toContain(local.time);

    await page.goto(`${t.baseUrl}/console/channels/${channelId}/schedule?week=${local.date}`);
    const day = page.locator(`[data-testid="week-day"][data-date="${local.date}"]`);
    const entry = day.locator('[data-testid="week-entry"][data-kind="post"]');
    expect(await entry.count()).toBe(1);
    expect(await entry.textContent()).toContain('Queued from the API for the week view');
    expect(await entry.textContent()).toContain(local.time);
    expect(await entry.getAttribute('data-at')).toBe(created.body.scheduledAt);
    expect(await entry.getByTestId('queued-badge').isVisible()).toBe(true);
    // The week's other slots are shown free: 5 a week, one of them taken.
    expect(await page.locator('[data-testid="week-entry"][data-kind="free"]').count()).toBe(4);
    expect(await page.getByTestId('week-day').count()).toBe(7);
    await screenshot(page, 'schedule-week');

    // The Posts page marks it queued too.
    await page.goto(`${t.baseUrl}/console/posts?channelId=${channelId}`);
    const row = page.getByTestId('post-row').filter({ hasText: 'Queued from the API for the week view' });
    expect(await row.getByTestId('queued-badge').isVisible()).toBe(true);

    // On a phone the week is one column of days, nothing wider than the screen.
    await page.setViewportSize(PHONE);
    await page.goto(`${t.baseUrl}/console/channels/${channelId}/schedule?week=${local.date}`);
    await expectFitsWidth(page, [page.getByRole('button', { name: 'Save schedule' }), entry]);
    await screenshot(page, 'phone-schedule');
    await page.setViewportSize({ width: 1200, height: 900 });
  });

  it('answers 404 for a channel of another workspace', async () => {
    const other = await t.createWorkspace('schedule-console-other');
    const theirs = await t.connectChannel(other.key, 'sandbox', { name: 'Not mine' });
    const res = await page.goto(`${t.baseUrl}/console/channels/${theirs}/schedule`);
    expect(res!.status()).toBe(404);
  });
});
