import { Browser, Page } from 'playwright-core';
import { DataSource } from 'typeorm';
import { videoFixture } from '../factories/video.factory';
import { MediaClient } from '../media/media-support';
import { FAST_PUBLISHING_ENV, waitFor } from '../support/publishing-env';
import { TestApp, freePort } from '../support/test-app';
import { WebhookReceiver } from '../support/webhook-receiver';
import { expectFitsWidth, launchChromium, screenshot } from './browser';
import { consoleSession } from './console-session';

const PHONE_390 = { width: 390, height: 844 };

/**
 * Previews and a post's page: a video post shows its poster and plays in a `<video>` whose source is
 * the signed media URL (200, video/mp4), its alt text is visible, and a limit the video breaks on its
 * channel is highlighted at it; the post page tells the whole story (who asked, each channel's
 * outcome with the network's link, its events and webhook deliveries).
 */
describe('console: media previews and the post page', () => {
  let t: TestApp;
  let browser: Browser;
  let page: Page;
  let ws: { workspaceId: string; key: string };
  let channelId: string;
  let postId: string;
  const receiver = new WebhookReceiver();

  beforeAll(async () => {
    await receiver.start();
    const port = await freePort();
    t = await TestApp.start({ port, env: { ...FAST_PUBLISHING_ENV, PUBLIC_BASE_URL: `http://127.0.0.1:${port}` } });
    ws = await t.createWorkspace('post-page');
    channelId = await t.connectChannel(ws.key, 'sandbox', { name: 'Video sandbox' });
    await t.request('POST', '/api/webhooks', {
      key: ws.key,
      body: { url: receiver.url('/events') },
    });
    const media = new MediaClient(t, ws.key);
    const video = videoFixture('h264-aac-faststart.mp4');
    const init = await media.initialize({
      filename: 'clip.mp4',
      mimeType: 'video/mp4',
      size: video.length,
      altText: 'A test pattern, two seconds',
    });
    await media.chunk(init.body.id, 0, video);
    await media.finalize(init.body.id);
    await waitFor(
      async () => (await media.get(init.body.id)).body.status,
      (s) => s === 'ready',
      30_000,
    );
    const created = await t.request('POST', '/api/posts', {
      key: ws.key,
      body: { content: 'A video post', channelIds: [channelId], mediaIds: [init.body.id], publishNow: true },
    });
    postId = created.body.id;
    await waitFor(
      async () => (await t.request('GET', `/api/posts/${postId}`, { key: ws.key })).body.status,
      (s) => s === 'published' || s === 'failed',
      40_000,
    );
    browser = await launchChromium();
    ({ page } = await consoleSession(t, browser, { workspaceId: ws.workspaceId, email: 'owner@post.example' }));
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await receiver.stop();
  });

  it('shows the video with its poster and alt text, and it plays from the signed URL', async () => {
    expect((await t.request('GET', `/api/posts/${postId}`, { key: ws.key })).body.status).toBe('published');
    await page.goto(`${t.baseUrl}/console/posts/${postId}`);
    const video = page.getByTestId('post-content').locator('..').getByTestId('video-preview');
    expect(await video.count()).toBe(1);
    const poster = (await video.getAttribute('poster'))!;
    expect(poster).toContain('variant=poster');
    const posterRes = await fetch(poster);
    expect(posterRes.status).toBe(200);
    expect(posterRes.headers.get('content-type')).toMatch(/^image\//);
    const src = (await video.locator('source').getAttribute('src'))!;
    const srcRes = await fetch(src);
    expect(srcRes.status).toBe(200);
    expect(srcRes.headers.get('content-type')).toBe('video/mp4');
    expect(await page.getByTestId('alt-text').first().textContent()).toContain('A test pattern, two seconds');

    // Plays: the player loads the signed URL and time advances.
    interface Player {
      muted: boolean;
      currentTime: number;
      readyState: number;
      currentSrc: string;
      error: { code: number } | null;
      play(): Promise<void>;
    }
    await video.evaluate((el) => {
      const v = el as unknown as Player;
      v.muted = true;
      return v.play();
    });
    const played = await waitFor(
      () =>
        video.evaluate((el) => {
          const v = el as unknown as Player;
          return { time: v.currentTime, error: v.error?.code ?? null, ready: v.readyState, src: v.currentSrc };
        }),
      (state) => state.time > 0.2 || state.error !== null,
      10_000,
    );
    expect(played).toMatchObject({ error: null, src });
    await screenshot(page, 'post-page-desktop');
  }, 60_000);

  it('tells the post’s story: who asked, the channel’s outcome and link, its events', async () => {
    await page.goto(`${t.baseUrl}/console/posts/${postId}`);
    expect(await page.getByTestId('created-by').first().textContent()).toMatch(/asked by API key/);
    const target = page.getByTestId('post-target-section');
    expect(await target.textContent()).toContain('published');
    expect(await target.getByTestId('target-attempts').textContent()).toBe('1');
    expect(await target.getByTestId('view-post').count()).toBe(1);
    const events = await page.getByTestId('post-event').allTextContents();
    expect(events.join(' ')).toContain('post.published');
    await waitFor(
      async () => {
        await page.reload();
        return page.getByTestId('webhook-delivery').count();
      },
      (n) => n > 0,
      20_000,
      500,
    );
  }, 60_000);

  it('highlights the limit the video breaks when its channel takes shorter videos now', async () => {
    // The network lowered its limit since the post was published: one second of video.
    await t.app
      .get(DataSource)
      .query(`UPDATE channels SET limits = jsonb_set(limits, '{video,maxDurationSeconds}', '1') WHERE id = $1`, [
        channelId,
      ]);
    await page.goto(`${t.baseUrl}/console/posts/${postId}`);
    const broken = page.locator('li.breaks-limit');
    expect(await broken.count()).toBeGreaterThan(0);
    expect(await broken.first().textContent()).toMatch(/second/i);
    await page.goto(`${t.baseUrl}/console/posts`);
    expect(await page.locator('li.breaks-limit').count()).toBeGreaterThan(0);
    await screenshot(page, 'posts-previews-desktop');
  });

  it('fits a 390 px phone', async () => {
    const phone = await consoleSession(t, browser, {
      workspaceId: ws.workspaceId,
      email: 'phone@post.example',
      viewport: PHONE_390,
    });
    await phone.page.goto(`${t.baseUrl}/console/posts/${postId}`);
    await expectFitsWidth(phone.page, [phone.page.getByTestId('video-preview').first()]);
    await screenshot(phone.page, 'post-page-390');
    await phone.page.goto(`${t.baseUrl}/console/posts`);
    await expectFitsWidth(phone.page);
    await screenshot(phone.page, 'posts-previews-390');
    await phone.context.close();
  });
});
