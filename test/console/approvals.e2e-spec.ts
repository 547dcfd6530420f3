import { Browser, Page } from 'playwright-core';
import { makePng } from '../factories/png.factory';
import { MediaClient } from '../media/media-support';
import { FAST_PUBLISHING_ENV, waitFor } from '../support/publishing-env';
import { TestApp, freePort } from '../support/test-app';
import { PHONE, expectFitsWidth, launchChromium, screenshot } from './browser';
import { consoleSession } from './console-session';

/**
 * The console's side of key scopes and approval: the key form's scope checkboxes, the Approvals page
 * (pending posts with their content per channel and media, approve, reject with a reason), the
 * workspace setting, and what a member may not do.
 */
describe('console: key scopes and approvals', () => {
  let t: TestApp;
  let browser: Browser;
  let owner: Page;
  let ws: { workspaceId: string; key: string };
  let channelId: string;
  let drafter: string;

  beforeAll(async () => {
    // Signed media URLs are made under PUBLIC_BASE_URL: the previews load from this server.
    const port = await freePort();
    t = await TestApp.start({ port, env: { ...FAST_PUBLISHING_ENV, PUBLIC_BASE_URL: `http://127.0.0.1:${port}` } });
    ws = await t.createWorkspace('approvals-console');
    channelId = await t.connectChannel(ws.key, 'sandbox', { name: 'Review sandbox' });
    drafter = (
      await t.request('POST', '/api/api-keys', {
        key: ws.key,
        body: { name: 'cms', scopes: ['posts:read', 'posts:write', 'media:write'] },
      })
    ).body.key;
    browser = await launchChromium();
    ({ page: owner } = await consoleSession(t, browser, { workspaceId: ws.workspaceId, email: 'owner@example.com' }));
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  const getPost = async (id: string) => (await t.request('GET', `/api/posts/${id}`, { key: ws.key })).body;
  const pendingPost = async (content: string, mediaIds: string[] = []) => {
    const res = await t.request('POST', '/api/posts', {
      key: drafter,
      body: { content, channelIds: [channelId], mediaIds, publishNow: true },
    });
    expect(res.body.status).toBe('pending_approval');
    return res.body.id as string;
  };

  it('creates a key with the scopes ticked, described in plain words, and the API holds it to them', async () => {
    await owner.goto(`${t.baseUrl}/console/keys`);
    await owner.locator('input[name="name"]').fill('read only');
    await owner.getByLabel('Everything').uncheck();
    await owner.getByLabel(/Read posts and their outcome per channel/).check();
    await screenshot(owner, 'scopes-01-key-form');
    await owner.getByRole('button', { name: 'Create key' }).click();
    await owner.waitForURL('**/console/keys');
    const key = (await owner.getByTestId('new-api-key').textContent())!.trim();
    expect((await t.request('GET', '/api/posts', { key })).status).toBe(200);
    const refused = await t.request('GET', '/api/webhooks', { key });
    expect(refused.status).toBe(403);
    expect(refused.body.message).toContain('webhooks:manage');
    const row = owner.getByTestId('api-key-row').filter({ hasText: 'read only' });
    expect(await row.textContent()).toContain('posts:read');

    await owner.locator('input[name="name"]').fill('nothing');
    await owner.getByLabel('Everything').uncheck();
    await owner.getByRole('button', { name: 'Create key' }).click();
    await owner.waitForURL('**/console/keys');
    expect(await owner.getByRole('alert').textContent()).toContain('tick at least one');
  });

  it('shows a pending post with its content and media, approves it, and it is published once', async () => {
    const png = makePng(4, 3);
    const media = new MediaClient(t, drafter);
    const init = await media.initialize({ filename: 'p.png', mimeType: 'image/png', size: png.length });
    await media.chunk(init.body.id, 0, png);
    expect((await media.finalize(init.body.id)).body.status).toBe('ready');
    const id = await pendingPost('Launch day is here', [init.body.id]);

    await owner.goto(`${t.baseUrl}/console/posts`);
    await owner.getByRole('link', { name: 'Approvals' }).click();
    await owner.waitForURL('**/console/approvals');
    const card = owner.getByTestId('pending-post').filter({ hasText: 'Launch day is here' });
    expect(await card.getByText('sandbox').first().isVisible()).toBe(true);
    expect(await card.getByText('now, once approved').isVisible()).toBe(true);
    const img = card.locator('img.preview');
    expect(await img.count()).toBe(1);
    await waitFor(
      () => img.evaluate((el) => (el as unknown as { naturalWidth: number }).naturalWidth),
      (w) => w === 4,
      5_000,
    );
    await screenshot(owner, 'scopes-02-approvals');
    await card.getByRole('button', { name: 'Approve' }).click();
    await owner.waitForURL('**/console/approvals');
    expect(await owner.getByRole('status').textContent()).toContain('Approved');
    expect(await owner.getByTestId('pending-post').filter({ hasText: 'Launch day is here' }).count()).toBe(0);
    const post = await waitFor(
      () => getPost(id),
      (p) => p.status === 'published' || p.status === 'failed',
    );
    expect(post.status).toBe('published');
    expect(post.approval.by.type).toBe('user');
  });

  it('rejects a pending post with a reason, and the post is a draft that says why', async () => {
    const id = await pendingPost('Too early to say');
    await owner.goto(`${t.baseUrl}/console/approvals`);
    const card = owner.getByTestId('pending-post').filter({ hasText: 'Too early to say' });
    await card.getByLabel('Reason for rejecting').fill('Wait for the press release');
    await card.getByRole('button', { name: 'Reject' }).click();
    await owner.waitForURL('**/console/approvals');
    expect(await owner.getByRole('status').textContent()).toContain('Rejected');
    const post = await getPost(id);
    expect(post).toMatchObject({ status: 'draft', rejection: { reason: 'Wait for the press release' } });
    expect(post.rejection.by.type).toBe('user');
  });

  it('turns the workspace setting on and off, as GET /api/workspace tells', async () => {
    await owner.goto(`${t.baseUrl}/console/approvals`);
    await owner.getByLabel(/Every post needs an approval/).check();
    await owner.getByRole('button', { name: 'Save setting' }).click();
    await owner.waitForURL('**/console/approvals');
    expect((await t.request('GET', '/api/workspace', { key: ws.key })).body.approvalRequired).toBe(true);
    await owner.getByLabel(/Every post needs an approval/).uncheck();
    await owner.getByRole('button', { name: 'Save setting' }).click();
    await owner.waitForURL('**/console/approvals');
    expect((await t.request('GET', '/api/workspace', { key: ws.key })).body.approvalRequired).toBe(false);
  });

  it('lets an approver approve, and shows a member the list without the buttons; it fits a phone', async () => {
    const id = await pendingPost('Approver on a phone');
    const approver = await consoleSession(t, browser, {
      workspaceId: ws.workspaceId,
      email: 'approver@example.com',
      role: 'approver',
      viewport: PHONE,
    });
    const member = await consoleSession(t, browser, {
      workspaceId: ws.workspaceId,
      email: 'member@example.com',
      role: 'member',
    });
    try {
      await member.page.goto(`${t.baseUrl}/console/approvals`);
      expect(await member.page.getByText('Only owners and approvers').isVisible()).toBe(true);
      expect(await member.page.getByRole('button', { name: 'Approve' }).count()).toBe(0);
      // A member holds every scope but posts:approve, and cannot give it to a key either.
      expect(await member.page.getByLabel('Everything').count()).toBe(0);
      await member.page.goto(`${t.baseUrl}/console/keys`);
      expect(await member.page.getByLabel(/Approve or reject posts/).count()).toBe(0);

      const p = approver.page;
      await p.goto(`${t.baseUrl}/console/approvals`);
      const card = p.getByTestId('pending-post').filter({ hasText: 'Approver on a phone' });
      await expectFitsWidth(p, [card.getByRole('button', { name: 'Approve' })]);
      await screenshot(p, 'scopes-03-approvals-phone');
      await card.getByRole('button', { name: 'Approve' }).click();
      await p.waitForURL('**/console/approvals');
      expect((await getPost(id)).status).not.toBe('pending_approval');
    } finally {
      await approver.context.close();
      await member.context.close();
    }
  });
});
