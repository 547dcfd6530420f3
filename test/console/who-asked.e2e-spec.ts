import { createHash, randomBytes } from 'node:crypto';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Browser, Page } from 'playwright-core';
import { DataSource } from 'typeorm';
import { TestApp } from '../support/test-app';
import { launchChromium, screenshot } from './browser';
import { consoleSession } from './console-session';

/** The width of a phone the new console pages are checked at. */
const PHONE_390 = { width: 390, height: 844 };

/**
 * Who asked for a post (`createdBy`): an API key (its name), an agent's OAuth access token (the
 * client's name), earlier posts (null); in the API, in `post.approval_requested` and on Approvals.
 * And the consent page an agent's authorization opens: each scope's checkbox on its own line.
 */
describe('console: who asked for a post, and the consent page', () => {
  let t: TestApp;
  let browser: Browser;
  let owner: Page;
  let ws: { workspaceId: string; key: string };
  let channelId: string;
  let cms: { id: string; key: string };
  let callback: Server;
  let callbackUrl: string;
  const codes: string[] = [];

  beforeAll(async () => {
    callback = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      if (url.pathname === '/callback') codes.push(url.searchParams.get('code') ?? '');
      res.writeHead(200, { 'content-type': 'text/plain' }).end('done');
    });
    await new Promise<void>((resolve) => callback.listen(0, '127.0.0.1', resolve));
    callbackUrl = `http://127.0.0.1:${(callback.address() as AddressInfo).port}/callback`;
    t = await TestApp.start();
    ws = await t.createWorkspace('who-asked');
    channelId = await t.connectChannel(ws.key, 'sandbox', { name: 'Who asked' });
    const created = await t.request('POST', '/api/api-keys', {
      key: ws.key,
      body: { name: 'cms drafts', scopes: ['posts:read', 'posts:write'] },
    });
    cms = { id: created.body.id, key: created.body.key };
    browser = await launchChromium();
    ({ page: owner } = await consoleSession(t, browser, { workspaceId: ws.workspaceId, email: 'owner@who.example' }));
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await new Promise<void>((resolve) => (callback ? callback.close(() => resolve()) : resolve()));
  });

  const later = () => new Date(Date.now() + 3_600_000).toISOString();

  it('names the API key on the post, in post.approval_requested and on Approvals', async () => {
    const res = await t.request('POST', '/api/posts', {
      key: cms.key,
      body: { content: 'asked by the cms', channelIds: [channelId], scheduledAt: later() },
    });
    expect(res.status).toBe(201);
    expect(res.body.status).toBe('pending_approval');
    const expected = { kind: 'api_key', id: cms.id, name: 'cms drafts' };
    expect(res.body.createdBy).toEqual(expected);
    expect((await t.request('GET', `/api/posts/${res.body.id}`, { key: ws.key })).body.createdBy).toEqual(expected);
    const events = await t.request('GET', '/api/events?type=post.approval_requested&limit=100', { key: ws.key });
    const event = events.body.data.find((e: { data: { id: string } }) => e.data.id === res.body.id);
    expect(event.data.createdBy).toEqual(expected);

    await owner.goto(`${t.baseUrl}/console/approvals`);
    const card = owner.getByTestId('pending-post').filter({ hasText: 'asked by the cms' });
    expect(await card.getByTestId('created-by').textContent()).toMatch(/asked by API key\s+cms drafts/);
    await screenshot(owner, 'who-asked-approvals');
  });

  it('shows null for a post made before createdBy was recorded', async () => {
    const res = await t.request('POST', '/api/posts', {
      key: ws.key,
      body: { content: 'an old post', channelIds: [channelId] },
    });
    expect(res.body.createdBy).toMatchObject({ kind: 'api_key', name: expect.any(String) });
    // What the migration leaves on the posts it finds.
    await t.app.get(DataSource).query('UPDATE posts SET created_by = NULL WHERE id = $1', [res.body.id]);
    expect((await t.request('GET', `/api/posts/${res.body.id}`, { key: ws.key })).body.createdBy).toBeNull();
  });

  /** Each scope checkbox's vertical centre lies within the first line of its own label's words. */
  const checkboxesOnTheirLines = async (page: Page) =>
    page.evaluate<Array<{ scope: string; ok: boolean; box: number[]; line: number[] }>>(`(() => {
      const out = [];
      for (const input of document.querySelectorAll('input[type=checkbox][name=scopes]')) {
        const label = input.closest('label');
        const words = label.querySelector('.check-text');
        const box = input.getBoundingClientRect();
        const line = words.getClientRects()[0];
        const centre = box.top + box.height / 2;
        out.push({
          scope: input.value,
          ok: centre >= line.top && centre <= line.bottom && box.right <= line.left + 1,
          box: [Math.round(box.left), Math.round(box.top), Math.round(box.bottom)],
          line: [Math.round(line.left), Math.round(line.top), Math.round(line.bottom)],
        });
      }
      return out;
    })()`);

  it('puts each checkbox of the consent page beside its scope, on desktop and at 390 px, and names the agent on its posts', async () => {
    const reg = await fetch(`${t.baseUrl}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: 'Drafting agent', redirect_uris: [callbackUrl] }),
    });
    const client = (await reg.json()) as { client_id: string };
    const verifier = randomBytes(32).toString('base64url');
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: client.client_id,
      redirect_uri: callbackUrl,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      state: 'st',
      resource: `${t.baseUrl}/mcp`,
      scope: 'channels:read posts:read posts:write',
    });
    for (const [name, viewport] of [
      ['desktop', { width: 1200, height: 900 }],
      ['390', PHONE_390],
    ] as const) {
      await owner.setViewportSize(viewport);
      await owner.goto(`${t.baseUrl}/oauth/authorize?${query.toString()}`);
      await owner.getByRole('heading', { name: 'Authorize Drafting agent?' }).waitFor();
      const lines = await checkboxesOnTheirLines(owner);
      expect(lines.length).toBeGreaterThan(5);
      expect(lines.filter((l) => !l.ok)).toEqual([]);
      await screenshot(owner, `consent-${name}`);
    }
    await owner.setViewportSize({ width: 1200, height: 900 });
    await owner.getByRole('button', { name: 'Approve' }).click();
    await owner.waitForURL(`${callbackUrl}*`);
    const code = codes.at(-1)!;
    const issued = await fetch(`${t.baseUrl}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        code_verifier: verifier,
        redirect_uri: callbackUrl,
        client_id: client.client_id,
      }).toString(),
    });
    const accessToken = ((await issued.json()) as { access_token: string }).access_token;
    const res = await fetch(`${t.baseUrl}/api/posts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ content: 'asked by an agent', channelIds: [channelId], scheduledAt: later() }),
    });
    const post = (await res.json()) as { id: string; createdBy: unknown };
    expect(res.status).toBe(201);
    expect(post.createdBy).toEqual({ kind: 'oauth_client', id: client.client_id, name: 'Drafting agent' });
    await owner.goto(`${t.baseUrl}/console/approvals`);
    const card = owner.getByTestId('pending-post').filter({ hasText: 'asked by an agent' });
    expect(await card.getByTestId('created-by').textContent()).toMatch(/asked by agent\s+Drafting agent/);
  }, 60_000);
});
