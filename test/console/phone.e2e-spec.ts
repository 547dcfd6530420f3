import { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { ApiKeysService } from '../../src/auth/api-keys.service';
import { SetupLinkService } from '../../src/users/setup-link.service';
import { UsersService } from '../../src/users/users.service';
import { LinkedInFake } from '../fakes/linkedin.fake';
import { FAST_PUBLISHING_ENV, waitFor } from '../support/publishing-env';
import { TestApp, freePort } from '../support/test-app';
import { WebhookReceiver } from '../support/webhook-receiver';
import { PHONE, expectFitsWidth, launchChromium, screenshot } from './browser';
import { OWNER_PASSWORD, localLink } from './console-session';

/**
 * Every console page on a phone (375 px wide): a screenshot of each in test-artifacts/console/
 * (phone-*.png), no sideways scrolling, and the columns and controls that matter on each page
 * inside the viewport: per-channel status on Posts, the actions on Channels, the role selector on
 * Members, and so on.
 */
describe('console on a phone (375 px)', () => {
  let t: TestApp;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let linkedin: LinkedInFake;
  let receiver: WebhookReceiver;
  let receiverUrl: string;
  let key: string;
  let workspaceId: string;
  let sandboxId: string;
  let webhookId: string;
  let inviteLink: string;

  const shot = async (name: string, required: (p: Page) => Locator[] = () => []) => {
    await screenshot(page, `phone-${name}`);
    await expectFitsWidth(page, required(page));
  };
  const open = async (path: string, name: string, required?: (p: Page) => Locator[], status = 200) => {
    const res = await page.goto(`${t.baseUrl}${path}`);
    expect({ path, status: res!.status() }).toEqual({ path, status });
    await shot(name, required);
  };
  const confirmControls = (p: Page) => [p.getByTestId('confirm-action'), p.getByRole('link', { name: 'Cancel' })];

  beforeAll(async () => {
    linkedin = new LinkedInFake({
      members: [
        { sub: 'phoneMember1', name: 'Phone Member', roles: [{ organizationId: '77', role: 'ADMINISTRATOR' }] },
      ],
      organizations: [{ id: '77', localizedName: 'A Company With A Rather Long Page Name', vanityName: 'long' }],
    });
    await linkedin.start();
    receiver = new WebhookReceiver();
    receiverUrl = await receiver.start();
    const port = await freePort();
    t = await TestApp.start({
      port,
      env: {
        ...FAST_PUBLISHING_ENV,
        CONSOLE_SETUP_LINK: 'true',
        ...linkedin.appEnv(),
        X_CLIENT_ID: '',
        X_CLIENT_SECRET: '',
        PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
        CONSOLE_URL: `http://127.0.0.1:${port}/console`,
      },
    });
    browser = await launchChromium();
    context = await browser.newContext({ viewport: PHONE, isMobile: true, hasTouch: true });
    page = await context.newPage();
    page.setDefaultTimeout(10_000);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await linkedin?.stop();
    await receiver?.stop();
  });

  it('signs in: the first-owner setup page and the sign-in page', async () => {
    const link = await t.app.get(SetupLinkService).run();
    await page.goto(localLink(t, link!));
    await shot('01-setup', (p) => [
      p.locator('input[name="password"]'),
      p.getByRole('button', { name: 'Create account' }),
    ]);
    await page.locator('input[name="email"]').fill('phone-owner@example.com');
    await page.locator('input[name="password"]').fill(OWNER_PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.waitForURL('**/console/keys');

    const anonymous = await browser.newContext({ viewport: PHONE, isMobile: true });
    try {
      const p = await anonymous.newPage();
      await p.goto(`${t.baseUrl}/console/login`);
      await screenshot(p, 'phone-02-login');
      await expectFitsWidth(p, [p.getByLabel('Email'), p.getByRole('button', { name: 'Sign in' })]);
    } finally {
      await anonymous.close();
    }

    // Data for the other pages, through the API of the owner's workspace.
    const users = t.app.get(UsersService);
    workspaceId = (await users.membershipsOf((await users.findByEmail('phone-owner@example.com'))!.id))[0].workspaceId;
    key = (await t.app.get(ApiKeysService).create(workspaceId, { name: 'phone api' })).key;
  });

  it('API keys: a new key shown once, the list with its Revoke action, and the revoke confirmation', async () => {
    // A second workspace puts the workspace switcher in the header of every page from here on.
    const second = await t.createWorkspace('phone-second-workspace');
    const users = t.app.get(UsersService);
    await users.addMembership((await users.findByEmail('phone-owner@example.com'))!.id, second.workspaceId, 'member');
    await page.goto(`${t.baseUrl}/console/keys`);
    await page.locator('input[name="name"]').fill('phone key with a long name for narrow screens');
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.waitForURL('**/console/keys');
    await shot('03-key-created', (p) => [p.getByTestId('new-api-key'), p.getByRole('button', { name: 'Copy' })]);
    await open('/console/keys', '04-keys', (p) => [
      p.getByLabel('Workspace'),
      p.getByRole('button', { name: 'Switch' }),
      p.getByTestId('api-key-row').getByRole('link', { name: /Revoke/ }),
      p.getByTestId('api-key-row').locator('td'),
      p.getByRole('button', { name: 'Create key' }),
    ]);
    await page
      .getByTestId('api-key-row')
      .first()
      .getByRole('link', { name: /Revoke/ })
      .click();
    await page.getByRole('heading', { name: 'Revoke this key?' }).waitFor();
    await shot('05-key-revoke-confirm', confirmControls);
  });

  it('Channels: rows with their actions, the network tiles, each connect page and the disconnect confirmation', async () => {
    sandboxId = await t.connectChannel(key, 'sandbox', { name: 'Phone sandbox with a long display name' });
    const gone = await t.connectChannel(key, 'sandbox', { name: 'Disconnected one' });
    expect((await t.request('DELETE', `/api/channels/${gone}`, { key })).status).toBeLessThan(300);
    await open('/console/channels', '06-channels', (p) => [
      p.getByTestId('channel-row').getByRole('link', { name: /^Disconnect / }),
      p.getByTestId('channel-row').getByRole('link', { name: /^Timeline of / }),
      p.getByTestId('channel-row').locator('td'),
      p.getByTestId('network-tile'),
    ]);
    await open('/console/channels/connect/sandbox', '07-connect-sandbox', (p) => [
      p.getByLabel('Name'),
      p.getByRole('button', { name: 'Connect Sandbox' }),
    ]);
    await open('/console/channels/connect/mastodon', '08-connect-mastodon', (p) => [
      p.getByLabel('Instance URL'),
      p.getByLabel('Access token'),
      p.getByRole('button', { name: 'Connect Mastodon' }),
    ]);
    await open('/console/channels/connect/x', '09-connect-disabled', (p) => [p.getByTestId('oauth-disabled')]);
    await open('/console/channels/connect/linkedin', '10-connect-oauth', (p) => [
      p.getByRole('button', { name: 'Connect LinkedIn' }),
    ]);
    await page.getByRole('button', { name: 'Connect LinkedIn' }).click();
    await page.waitForURL(`${linkedin.baseUrl}/**`);
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL('**/console/channels/connections/*');
    await shot('11-choose-accounts', (p) => [
      p.getByTestId('target-choice'),
      p.getByRole('button', { name: 'Connect selected' }),
    ]);
    await open(`/console/channels/${sandboxId}/disconnect`, '12-disconnect-confirm', confirmControls);
  });

  it('Posts: the per-channel status and view link of every post, and the sandbox timeline', async () => {
    const publish = async (content: string) => {
      const res = await t.request('POST', '/api/posts', {
        key,
        body: { content, channelIds: [sandboxId], publishNow: true },
      });
      expect(res.status).toBe(201);
      return waitFor(
        async () => (await t.request('GET', `/api/posts/${res.body.id}`, { key })).body,
        (p) => p.status === 'published' || p.status === 'failed',
      );
    };
    const published = await publish('Hello from a phone, with a sentence long enough to wrap on a narrow screen.');
    expect(published.status).toBe('published');
    expect((await publish('This one fails on purpose #fail-permanent')).status).toBe('failed');
    const scheduled = await t.request('POST', '/api/posts', {
      key,
      body: {
        content: 'Later',
        channelIds: [sandboxId],
        scheduledAt: new Date(Date.now() + 86_400_000).toISOString(),
      },
    });
    expect(scheduled.status).toBe(201);

    await open('/console/posts', '13-posts', (p) => [
      p.getByTestId('post-target'),
      p.getByTestId('post-target').locator('.badge'),
      p.getByTestId('post-row').getByRole('link', { name: 'view' }),
      p.getByTestId('post-row').locator('td'),
      p.getByLabel('Status'),
      p.getByRole('button', { name: 'Filter' }),
    ]);
    expect(await page.getByTestId('post-target').count()).toBe(3);
    await page.getByTestId('post-row').getByRole('link', { name: 'view' }).first().click();
    await page.waitForURL('**/timeline#post-*');
    await shot('14-sandbox-timeline', (p) => [p.getByTestId('timeline-item')]);
  });

  it('Webhooks: the row actions, the delivery log and the rotate and delete confirmations', async () => {
    const created = await t.request('POST', '/api/webhooks', {
      key,
      body: {
        url: `${receiverUrl}/a/rather/long/path/for/the/webhook/endpoint?with=query&and=more`,
        description: 'Phone test endpoint',
        events: ['post.published', 'post.failed', 'channel.disconnected'],
      },
    });
    expect(created.status).toBe(201);
    webhookId = created.body.id;
    await open('/console/webhooks', '15-webhooks', (p) => [
      ...['Disable', 'Send test', 'Rotate secret', 'Deliveries'].map((name) =>
        p.getByTestId('webhook-row').getByRole(name === 'Disable' || name === 'Send test' ? 'button' : 'link', {
          name,
          exact: true,
        }),
      ),
      p.getByTestId('webhook-row').getByRole('link', { name: /^Delete webhook/ }),
      p.getByTestId('webhook-row').locator('td'),
      p.getByRole('button', { name: 'Add webhook' }),
    ]);
    await page.getByTestId('webhook-row').getByRole('button', { name: 'Send test' }).click();
    await page.waitForURL(`**/console/webhooks/${webhookId}`);
    for (let i = 0; i < 40 && (await page.getByTestId('delivery-row').count()) === 0; i++) {
      await new Promise((r) => setTimeout(r, 250));
      await page.reload();
    }
    await shot('16-webhook-deliveries', (p) => [
      p.getByTestId('delivery-row').locator('td'),
      p.getByRole('button', { name: 'Send test' }),
    ]);
    await open(`/console/webhooks/${webhookId}/rotate`, '17-webhook-rotate-confirm', confirmControls);
    await open(`/console/webhooks/${webhookId}/delete`, '18-webhook-delete-confirm', confirmControls);
  });

  it('Members: the role selector and actions of every member, open invitations with Revoke, and both confirmations', async () => {
    const users = t.app.get(UsersService);
    const joined = await users.createLink(
      'invitation',
      workspaceId,
      'a.member.with.a.long.address@example.com',
      'member',
    );
    await users.acceptLink(new URL(joined.url).searchParams.get('token')!, { password: 'member password 1' });
    await page.goto(`${t.baseUrl}/console/members`);
    await page.getByLabel('Email').fill('invited.person@example.com');
    await page.getByRole('button', { name: 'Create invitation link' }).click();
    await page.waitForURL('**/console/members');
    inviteLink = (await page.getByTestId('invitation-link').textContent())!.trim();
    await shot('19-members-invited', (p) => [
      p.getByTestId('invitation-link'),
      p.getByRole('button', { name: 'Copy' }),
    ]);
    await open('/console/members', '20-members', (p) => [
      p.getByTestId('member-row').locator('select[name="role"]'),
      p.getByTestId('member-row').getByRole('button', { name: 'Change role' }),
      p.getByTestId('member-row').getByRole('link', { name: /^Remove / }),
      p.getByTestId('member-row').locator('td'),
      p.getByTestId('invitation-row').getByRole('link', { name: /^Revoke / }),
      p.getByTestId('invitation-row').locator('td'),
    ]);
    expect(await page.getByTestId('member-row').locator('select[name="role"]').count()).toBe(2);
    const member = (await users.listMembers(workspaceId)).find((m) => m.role === 'member')!;
    await open(`/console/members/${member.userId}/remove`, '21-member-remove-confirm', confirmControls);
    const invitation = (await users.listOpenInvitations(workspaceId))[0];
    await open(`/console/members/invitations/${invitation.id}/revoke`, '22-invitation-revoke-confirm', confirmControls);
  });

  it('the invitation page and the error page', async () => {
    const invited = await browser.newContext({ viewport: PHONE, isMobile: true });
    try {
      const p = await invited.newPage();
      await p.goto(localLink(t, inviteLink));
      await screenshot(p, 'phone-23-accept-invitation');
      await expectFitsWidth(p, [p.locator('input[name="password"]'), p.getByRole('button', { name: 'Join' })]);
    } finally {
      await invited.close();
    }
    await open(
      '/console/no-such-page',
      '24-not-found',
      (p) => [p.getByRole('link', { name: 'Back to the console' })],
      404,
    );
  });
});
