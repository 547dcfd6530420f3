import { Browser, Page } from 'playwright-core';
import { FAST_PUBLISHING_ENV, waitFor } from '../support/publishing-env';
import { TestApp } from '../support/test-app';
import { PHONE, expectFitsWidth, launchChromium, screenshot } from './browser';
import { consoleSession } from './console-session';

/**
 * The Channels page offers every network the server has registered as a tile (from the same data
 * as GET /api/providers), enabled ones first, each one click from its connect page; the Posts page
 * links a sandbox post to its place on the channel's timeline in the console.
 */
describe('console: network tiles and the sandbox timeline', () => {
  let t: TestApp;
  let browser: Browser;
  let page: Page;
  let ws: { workspaceId: string; key: string };

  beforeAll(async () => {
    t = await TestApp.start({
      env: {
        ...FAST_PUBLISHING_ENV,
        // X is enabled here (app credentials set; nothing is called unless its button is pressed),
        // the other OAuth networks are not.
        X_CLIENT_ID: 'x-client',
        X_CLIENT_SECRET: 'x-secret',
        LINKEDIN_CLIENT_ID: '',
        LINKEDIN_CLIENT_SECRET: '',
      },
    });
    ws = await t.createWorkspace('tiles');
    browser = await launchChromium();
    ({ page } = await consoleSession(t, browser, { workspaceId: ws.workspaceId, email: 'tiles@example.com' }));
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('shows one tile per network of GET /api/providers, the enabled ones first, each linking to its connect page', async () => {
    const providers = (await t.request('GET', '/api/providers', { key: ws.key })).body.data as Array<{
      id: string;
      name: string;
      enabled: boolean;
    }>;
    expect(providers.length).toBeGreaterThanOrEqual(8);
    const expected = [...providers.filter((p) => p.enabled), ...providers.filter((p) => !p.enabled)];
    expect(expected.map((p) => p.id)).toEqual(expect.arrayContaining(['sandbox', 'mastodon', 'x', 'linkedin']));

    await page.goto(`${t.baseUrl}/console/channels`);
    const tiles = page.getByTestId('network-tile');
    const shown = await tiles.evaluateAll((els) =>
      els.map((el) => ({
        id: el.getAttribute('data-network'),
        enabled: el.getAttribute('data-enabled') === 'true',
        href: el.getAttribute('href'),
        text: el.textContent ?? '',
      })),
    );
    expect(shown.map((s) => s.id)).toEqual(expected.map((p) => p.id));
    for (const [i, p] of expected.entries()) {
      expect(shown[i]).toMatchObject({ enabled: p.enabled, href: `/console/channels/connect/${p.id}` });
      expect(shown[i].text).toContain(p.name);
      if (!p.enabled) expect(shown[i].text).toContain('Not enabled on this server');
    }
    // A grid: several tiles share a row at desktop width, so more networks add rows, not width.
    const tops = await tiles.evaluateAll((els) => els.map((el) => Math.round(el.getBoundingClientRect().top)));
    expect(new Set(tops).size).toBeLessThan(tops.length);
    await screenshot(page, 'channels-tiles');
  });

  it('one click on a tile opens its connect page: a form, a sign-in button, or why it is not enabled', async () => {
    await page.goto(`${t.baseUrl}/console/channels`);
    await page.getByTestId('network-tile').filter({ hasText: 'Mastodon' }).click();
    await page.waitForURL('**/console/channels/connect/mastodon');
    expect(await page.getByRole('heading', { name: 'Connect Mastodon' }).isVisible()).toBe(true);
    expect(await page.getByLabel('Instance URL').isVisible()).toBe(true);
    expect(await page.getByLabel('Access token').getAttribute('type')).toBe('password');

    await page.goto(`${t.baseUrl}/console/channels`);
    await page
      .getByTestId('network-tile')
      .filter({ hasText: /^\s*X\b/ })
      .click();
    await page.waitForURL('**/console/channels/connect/x');
    expect(await page.getByRole('button', { name: 'Connect X' }).isVisible()).toBe(true);

    await page.goto(`${t.baseUrl}/console/channels`);
    await page.getByTestId('network-tile').filter({ hasText: 'LinkedIn' }).click();
    await page.waitForURL('**/console/channels/connect/linkedin');
    const why = await page.getByTestId('oauth-disabled').textContent();
    expect(why).toContain('LinkedIn is not enabled on this server');
    expect(why).toContain('LINKEDIN_CLIENT_ID');
    expect(await page.getByRole('button', { name: 'Connect LinkedIn' }).count()).toBe(0);

    const unknown = await page.goto(`${t.baseUrl}/console/channels/connect/myspace`);
    expect(unknown!.status()).toBe(404);
  });

  it('a refused connection comes back to the network’s connect page with the reason', async () => {
    await page.goto(`${t.baseUrl}/console/channels/connect/sandbox`);
    await page.getByLabel(/Max characters/).fill('0');
    await page.getByLabel('Name').fill('Too small');
    await page.getByRole('button', { name: 'Connect Sandbox' }).click();
    await page.waitForURL('**/console/channels/connect/sandbox');
    expect(await page.getByRole('alert').textContent()).toContain('Could not connect Sandbox');
  });

  it('links a published sandbox post to its place on the channel timeline in the console', async () => {
    const channelId = await t.connectChannel(ws.key, 'sandbox', { name: 'Timeline sandbox' });
    const created = await t.request('POST', '/api/posts', {
      key: ws.key,
      body: {
        content: 'Hello timeline',
        firstComment: 'Links in the first comment',
        channelIds: [channelId],
        targets: [{ channelId, options: { visibility: 'unlisted', contentWarning: 'Greetings ahead' } }],
        publishNow: true,
      },
    });
    expect(created.status).toBe(201);
    const post = await waitFor(
      async () => (await t.request('GET', `/api/posts/${created.body.id}`, { key: ws.key })).body,
      (p) => p.status === 'failed' || (p.status === 'published' && p.targets[0].firstComment?.status !== 'pending'),
    );
    expect(post.status).toBe('published');
    const target = post.targets[0];
    expect(target.firstComment).toMatchObject({ status: 'published' });
    expect(target.url).toMatch(/^sandbox:/); // the API's own address of it, which a browser cannot open

    await page.goto(`${t.baseUrl}/console/posts`);
    const row = page.getByTestId('post-row').filter({ hasText: 'Hello timeline' });
    // The post view shows the target's network options.
    expect(await row.getByTestId('target-options').textContent()).toBe(
      'visibility: unlisted · contentWarning: Greetings ahead',
    );
    // And its first comment's outcome.
    expect(await row.getByTestId('target-first-comment').textContent()).toBe('first comment: published');
    const view = row.getByRole('link', { name: 'view' });
    expect(await view.getAttribute('href')).toBe(
      `/console/channels/${channelId}/timeline#post-${target.platformPostId}`,
    );
    await view.click();
    await page.waitForURL(`**/console/channels/${channelId}/timeline#post-${target.platformPostId}`);
    expect(await page.getByRole('heading', { name: /Sandbox timeline of Timeline sandbox/ }).isVisible()).toBe(true);
    const item = page.locator(`#post-${target.platformPostId}`);
    expect(await item.textContent()).toContain('Hello timeline');
    expect(await item.getByTestId('content-warning').textContent()).toBe('CW: Greetings ahead');
    expect(await item.textContent()).toContain('unlisted');
    expect(await item.evaluate((el) => el.matches(':target'))).toBe(true);
    await screenshot(page, 'sandbox-timeline');

    // The Channels page links every sandbox channel to its timeline too.
    await page.goto(`${t.baseUrl}/console/channels`);
    await page
      .getByTestId('channel-row')
      .filter({ hasText: 'Timeline sandbox' })
      .getByRole('link', { name: 'Timeline of Timeline sandbox' })
      .click();
    await page.waitForURL(`**/console/channels/${channelId}/timeline`);
    // The post and its first comment, a reply on the timeline.
    expect(await page.getByTestId('timeline-item').count()).toBe(2);
  });

  it('has no timeline for channels of other networks or of other workspaces', async () => {
    const other = await t.createWorkspace('tiles-other');
    const foreign = await t.connectChannel(other.key, 'sandbox', { name: 'Not yours' });
    expect((await page.goto(`${t.baseUrl}/console/channels/${foreign}/timeline`))!.status()).toBe(404);
    expect((await page.goto(`${t.baseUrl}/console/channels/not-a-uuid/timeline`))!.status()).toBe(404);
  });

  it('fits the tiles and the connect page on a phone', async () => {
    const phone = await browser.newContext({ viewport: PHONE, storageState: await page.context().storageState() });
    try {
      const p = await phone.newPage();
      await p.goto(`${t.baseUrl}/console/channels`);
      await expectFitsWidth(p, [p.getByTestId('network-tile')]);
    } finally {
      await phone.close();
    }
  });
});
