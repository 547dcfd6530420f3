import { Browser, Page } from 'playwright-core';
import { makePng } from '../factories/png.factory';
import { waitFor } from '../support/publishing-env';
import { TestApp } from '../support/test-app';
import { expectFitsWidth, launchChromium, screenshot } from './browser';
import { consoleSession } from './console-session';

const PHONE_390 = { width: 390, height: 844 };

/** `YYYY-MM-DDTHH:MM` in UTC, a day ahead: what the composer's datetime-local field takes. */
function tomorrowLocal(): string {
  return new Date(Date.now() + 86_400_000).toISOString().slice(0, 16);
}

/**
 * The composer: counts per network as one types (the networks' own counting), an image uploaded in
 * the browser in chunks, a scheduled post made by the signed-in user (createdBy names them), the
 * validation problems at their fields, and text posts without script.
 */
describe('console: the composer', () => {
  let t: TestApp;
  let browser: Browser;
  let page: Page;
  let ws: { workspaceId: string; key: string };
  let roomy: string;
  let tight: string;
  const email = 'writer@composer.example';

  beforeAll(async () => {
    t = await TestApp.start();
    ws = await t.createWorkspace('composer');
    roomy = await t.connectChannel(ws.key, 'sandbox', { name: 'Roomy' });
    tight = (
      await t.request('POST', '/api/channels', {
        key: ws.key,
        body: { provider: 'sandbox', credentials: { name: 'Tight', maxCharacters: 10 } },
      })
    ).body.id;
    browser = await launchChromium();
    ({ page } = await consoleSession(t, browser, { workspaceId: ws.workspaceId, email }));
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  const channelBox = (p: Page, name: string) =>
    p.locator('label.check').filter({ hasText: name }).locator('input[type=checkbox]');

  it('creates a scheduled post with an image uploaded in the browser, counting as one types', async () => {
    await page.goto(`${t.baseUrl}/console/posts/new`);
    await page.locator('textarea[name="content"]').fill('Hello 👋🏽 world');
    const roomyCount = page.locator(`[data-count-for="${roomy}"]`);
    // Graphemes, as the sandbox's validation counts them: the waving hand with its skin tone is one.
    await waitFor(
      () => roomyCount.textContent(),
      (text) => text === '13 / 500',
      5_000,
    );
    expect(await roomyCount.textContent()).toBe('13 / 500');
    await channelBox(page, 'Roomy').check();

    const png = makePng(64, 48);
    await page.getByTestId('media-file').setInputFiles({ name: 'picture.png', mimeType: 'image/png', buffer: png });
    await page.getByTestId('uploaded-media').waitFor();
    expect(await page.getByTestId('uploaded-media').textContent()).toBe('picture.png: ready');
    expect(await page.getByTestId('upload-progress').evaluate((el) => (el as unknown as { value: number }).value)).toBe(
      100,
    );
    await page.locator('input[name="scheduledAt"]').fill(tomorrowLocal());
    await screenshot(page, 'composer-desktop');
    await page.getByRole('button', { name: 'Schedule' }).click();
    await page.waitForURL(/\/console\/posts\/[0-9a-f-]{36}$/);
    const id = page.url().split('/').pop()!;
    const post = (await t.request('GET', `/api/posts/${id}`, { key: ws.key })).body;
    expect(post).toMatchObject({ status: 'scheduled', content: 'Hello 👋🏽 world', channelIds: [roomy] });
    expect(post.mediaIds).toHaveLength(1);
    expect(post.createdBy).toMatchObject({ kind: 'user', name: email });
    expect(await page.getByTestId('image-preview').count()).toBe(1);
  }, 60_000);

  it('shows a validation problem at its field, keeping what was typed', async () => {
    await page.goto(`${t.baseUrl}/console/posts/new`);
    await page.locator('textarea[name="content"]').fill('Far too long for the tight one');
    await waitFor(
      () => page.locator(`[data-count-for="${tight}"]`).getAttribute('class'),
      (cls) => (cls ?? '').split(' ').includes('over'),
      5_000,
    );
    await channelBox(page, 'Tight').check();
    await page.locator('input[name="scheduledAt"]').fill(tomorrowLocal());
    await page.getByRole('button', { name: 'Schedule' }).click();
    const problem = page.locator('[data-testid="field-problem"][data-field="content"]');
    await problem.waitFor();
    expect(await problem.textContent()).toContain('at most 10 characters');
    expect(await page.locator('textarea[name="content"]').inputValue()).toBe('Far too long for the tight one');
    expect(await page.locator('textarea[name="content"]').getAttribute('aria-describedby')).toBe('problems-content');
    await screenshot(page, 'composer-problem-desktop');
  });

  it('makes a text post without script, and edits the draft', async () => {
    const context = await browser.newContext({ javaScriptEnabled: false, viewport: PHONE_390 });
    const plain = await context.newPage();
    await plain.context().addCookies(await page.context().cookies());
    await plain.goto(`${t.baseUrl}/console/posts/new`);
    await screenshot(plain, 'composer-390');
    await expectFitsWidth(plain, [
      plain.locator('textarea[name="content"]'),
      plain.getByRole('button', { name: 'Schedule' }),
    ]);
    await screenshot(plain, 'composer-390');
    expect(await plain.getByTestId('media-file').isVisible()).toBe(false);
    await plain.locator('textarea[name="content"]').fill('Plain words');
    await channelBox(plain, 'Roomy').check();
    await plain.getByRole('button', { name: 'Save draft' }).click();
    await plain.waitForURL(/\/console\/posts\/[0-9a-f-]{36}$/);
    const id = plain.url().split('/').pop()!;
    expect((await t.request('GET', `/api/posts/${id}`, { key: ws.key })).body).toMatchObject({
      status: 'draft',
      content: 'Plain words',
    });
    await plain.getByRole('link', { name: 'Edit draft' }).click();
    expect(await plain.locator('textarea[name="content"]').inputValue()).toBe('Plain words');
    await plain.locator('textarea[name="content"]').fill('Plain words, edited');
    await plain.getByRole('button', { name: 'Save draft' }).click();
    await plain.waitForURL(`**/console/posts/${id}`);
    expect((await t.request('GET', `/api/posts/${id}`, { key: ws.key })).body.content).toBe('Plain words, edited');
    await context.close();
  });
});
