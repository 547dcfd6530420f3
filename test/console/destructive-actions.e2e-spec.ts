import { Browser, Page } from 'playwright-core';
import { UsersService } from '../../src/users/users.service';
import { TestApp } from '../support/test-app';
import { launchChromium, screenshot } from './browser';
import { OWNER_PASSWORD, consoleSession, localLink } from './console-session';

/**
 * Every console action that loses something asks first, like revoking a key: a button leads to a
 * page saying what will happen, with the real (POST) button and Cancel. A stray click changes nothing.
 */
describe('console: destructive actions are confirmed', () => {
  let t: TestApp;
  let browser: Browser;
  let page: Page;
  let ws: { workspaceId: string; key: string };

  beforeAll(async () => {
    t = await TestApp.start();
    ws = await t.createWorkspace('confirmations');
    browser = await launchChromium();
    ({ page } = await consoleSession(t, browser, { workspaceId: ws.workspaceId, email: 'own@example.com' }));
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  const channelStatus = async (id: string) =>
    (await t.request('GET', `/api/channels/${id}`, { key: ws.key })).body.status as string;

  it('disconnecting a channel asks first; Cancel keeps it and its credentials, the confirmation disconnects it', async () => {
    const id = await t.connectChannel(ws.key, 'sandbox', { name: 'Keep me' });
    await page.goto(`${t.baseUrl}/console/channels`);
    const row = () => page.getByTestId('channel-row').filter({ hasText: 'Keep me' });
    await row().getByText('Disconnect', { exact: true }).click();
    await page.getByRole('heading', { name: 'Disconnect this channel?' }).waitFor();
    expect(await page.getByText('Its credentials are deleted').isVisible()).toBe(true);
    await screenshot(page, 'confirm-disconnect');
    expect(await channelStatus(id)).toBe('active');

    await page.getByRole('link', { name: 'Cancel' }).click();
    await page.waitForURL('**/console/channels');
    expect(await row().textContent()).toContain('active');
    expect(await channelStatus(id)).toBe('active');
    const [stored] = await t.dataSource.query('SELECT credentials FROM channels WHERE id = $1', [id]);
    expect(stored.credentials).not.toBeNull();

    await row().getByText('Disconnect', { exact: true }).click();
    await page.getByRole('button', { name: 'Disconnect channel' }).click();
    await page.waitForURL('**/console/channels');
    expect(await page.getByRole('status').textContent()).toContain('Channel disconnected');
    expect(await channelStatus(id)).toBe('disconnected');
  });

  it('removing a member asks first; the confirmation removes them', async () => {
    const users = t.app.get(UsersService);
    const { url } = await users.createLink('invitation', ws.workspaceId, 'leaving@example.com', 'member');
    await users.acceptLink(new URL(url).searchParams.get('token')!, { password: 'leaving password 1' });
    const isMember = async () =>
      (await users.listMembers(ws.workspaceId)).some((m) => m.email === 'leaving@example.com');

    await page.goto(`${t.baseUrl}/console/members`);
    const row = page.getByTestId('member-row').filter({ hasText: 'leaving@example.com' });
    await row.getByText('Remove', { exact: true }).click();
    await page.getByRole('heading', { name: 'Remove this member?' }).waitFor();
    expect(await page.locator('main').textContent()).toContain('leaving@example.com');
    await screenshot(page, 'confirm-remove-member');
    expect(await isMember()).toBe(true);

    await page.getByRole('button', { name: 'Remove member' }).click();
    await page.waitForURL('**/console/members');
    expect(await page.getByRole('status').textContent()).toContain('Member removed');
    expect(await isMember()).toBe(false);
  });

  it('deleting a webhook asks first; the confirmation deletes it', async () => {
    const created = await t.request('POST', '/api/webhooks', {
      key: ws.key,
      body: { url: 'http://127.0.0.1:9/delete-me', events: ['post.published'] },
    });
    expect(created.status).toBe(201);
    const status = async () => (await t.request('GET', `/api/webhooks/${created.body.id}`, { key: ws.key })).status;

    await page.goto(`${t.baseUrl}/console/webhooks`);
    const row = page.getByTestId('webhook-row').filter({ hasText: 'delete-me' });
    await row.getByText('Delete', { exact: true }).click();
    await page.getByRole('heading', { name: 'Delete this webhook?' }).waitFor();
    await screenshot(page, 'confirm-delete-webhook');
    expect(await status()).toBe(200);

    await page.getByRole('button', { name: 'Delete webhook' }).click();
    await page.waitForURL('**/console/webhooks');
    expect(await page.getByRole('status').textContent()).toContain('Webhook deleted');
    expect(await page.getByTestId('webhook-row').filter({ hasText: 'delete-me' }).count()).toBe(0);
    expect(await status()).toBe(404);
  });

  it('rotating a webhook secret asks first; the confirmation shows the new secret once', async () => {
    const created = await t.request('POST', '/api/webhooks', {
      key: ws.key,
      body: { url: 'http://127.0.0.1:9/rotate-me' },
    });
    const rotatedAt = async () =>
      (await t.dataSource.query('SELECT secret_rotated_at FROM webhooks WHERE id = $1', [created.body.id]))[0]
        .secret_rotated_at;

    await page.goto(`${t.baseUrl}/console/webhooks`);
    await page
      .getByTestId('webhook-row')
      .filter({ hasText: 'rotate-me' })
      .getByText('Rotate secret', { exact: true })
      .click();
    await page.getByRole('heading', { name: 'Rotate the signing secret?' }).waitFor();
    expect(await rotatedAt()).toBeNull();

    await page.getByRole('button', { name: 'Rotate secret' }).click();
    await page.waitForURL('**/console/webhooks');
    expect(await page.getByTestId('new-webhook-secret').textContent()).toMatch(/^whsec_/);
    expect(await rotatedAt()).not.toBeNull();
  });

  it('lists open invitations; revoking one asks first, and its link no longer works', async () => {
    await page.goto(`${t.baseUrl}/console/members`);
    await page.getByLabel('Email').fill('invited@example.com');
    await page.getByRole('button', { name: 'Create invitation link' }).click();
    await page.waitForURL('**/console/members');
    const link = (await page.getByTestId('invitation-link').textContent())!.trim();
    const row = () => page.getByTestId('invitation-row').filter({ hasText: 'invited@example.com' });
    expect(await row().textContent()).toContain('member');

    await row().getByText('Revoke', { exact: true }).click();
    await page.getByRole('heading', { name: 'Revoke this invitation?' }).waitFor();
    await screenshot(page, 'confirm-revoke-invitation');
    await page.getByRole('link', { name: 'Cancel' }).click();
    await page.waitForURL('**/console/members');
    expect(await row().count()).toBe(1);

    await row().getByText('Revoke', { exact: true }).click();
    await page.getByRole('button', { name: 'Revoke invitation' }).click();
    await page.waitForURL('**/console/members');
    expect(await page.getByRole('status').textContent()).toContain('Invitation revoked');
    expect(await row().count()).toBe(0);

    // The link is dead: its page and its form both answer that it is unknown.
    const stranger = await browser.newContext();
    try {
      const p = await stranger.newPage();
      const res = await p.goto(localLink(t, link));
      expect(res!.status()).toBe(404);
      expect(await p.getByText('This link is used, expired or unknown').isVisible()).toBe(true);
    } finally {
      await stranger.close();
    }
    await expect(
      t.app.get(UsersService).acceptLink(new URL(link).searchParams.get('token')!, { password: OWNER_PASSWORD }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect((await t.app.get(UsersService).listMembers(ws.workspaceId)).map((m) => m.email)).not.toContain(
      'invited@example.com',
    );
  });

  it("cannot revoke another workspace's invitation, nor one that was used", async () => {
    const users = t.app.get(UsersService);
    const other = await t.createWorkspace('confirmations-other');
    const foreign = await users.createLink('invitation', other.workspaceId, 'elsewhere@example.com', 'member');
    const confirm = await page.goto(`${t.baseUrl}/console/members/invitations/${foreign.link.id}/revoke`);
    expect(confirm!.status()).toBe(404);
    await expect(users.revokeInvitation(ws.workspaceId, foreign.link.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect((await users.listOpenInvitations(other.workspaceId)).map((i) => i.id)).toContain(foreign.link.id);

    const used = await users.createLink('invitation', ws.workspaceId, 'joined@example.com', 'member');
    await users.acceptLink(new URL(used.url).searchParams.get('token')!, { password: 'joined password 1' });
    await expect(users.revokeInvitation(ws.workspaceId, used.link.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(users.revokeInvitation(ws.workspaceId, 'not-a-uuid')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('a member (not an owner) cannot open the confirmations of Members', async () => {
    const users = t.app.get(UsersService);
    const open = await users.createLink('invitation', ws.workspaceId, 'pending@example.com', 'member');
    const { context } = await consoleSession(t, browser, {
      workspaceId: ws.workspaceId,
      email: 'plain@example.com',
      role: 'member',
    });
    try {
      const p = await context.newPage();
      const res = await p.goto(`${t.baseUrl}/console/members/invitations/${open.link.id}/revoke`);
      expect(res!.status()).toBe(403);
    } finally {
      await context.close();
    }
    expect((await users.listOpenInvitations(ws.workspaceId)).map((i) => i.id)).toContain(open.link.id);
  });
});
