import { createHash, randomBytes } from 'node:crypto';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  type OAuthClientProvider,
  UnauthorizedError,
  discoverAuthorizationServerMetadata,
  refreshAuthorization,
} from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Browser, Page } from 'playwright-core';
import { generateApiKey, generateOAuthToken } from '../../src/auth/api-key.format';
import { UsersService } from '../../src/users/users.service';
import { launchChromium, screenshot } from '../console/browser';
import { ConsoleClient } from '../support/console-client';
import { TestApp } from '../support/test-app';

const PASSWORD = 'a long enough password for oauth';

/** A loopback "agent" that receives the authorization response, as a native MCP client does. */
class Callback {
  private server?: Server;
  url = '';
  private waiting: Array<(query: URLSearchParams) => void> = [];

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      res.writeHead(200, { 'content-type': 'text/plain' }).end('You can close this window.');
      // Only the redirect itself (the browser asks for /favicon.ico too).
      if (url.pathname === '/callback') this.waiting.shift()?.(url.searchParams);
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/callback`;
  }

  next(): Promise<URLSearchParams> {
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  stop(): Promise<void> {
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

/** What an MCP client keeps between runs: its registration, tokens and PKCE verifier (the SDK's interface). */
class AgentStore implements OAuthClientProvider {
  info?: OAuthClientInformationMixed;
  saved?: OAuthTokens;
  verifier?: string;
  authorizationUrl?: URL;

  constructor(
    readonly redirectUrl: string,
    private readonly scope: string,
  ) {}

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'E2E Agent',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      scope: this.scope,
    };
  }
  state(): string {
    return 'state-' + randomBytes(4).toString('hex');
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.info = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier!;
  }
}

const pkce = () => {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
};

async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

describe('OAuth 2.1 for remote MCP agents', () => {
  const callback = new Callback();
  let t: TestApp;
  let browser: Browser;
  let page: Page;
  let workspaceId: string;
  let otherWorkspaceId: string;
  let channelId: string;
  let wsKey: string;
  const email = 'agent-owner@example.com';

  /** A console user owning the workspace, and a member of a second one. */
  const join = async (wsId: string, role: 'owner' | 'member') => {
    const { url } = await t.app.get(UsersService).createLink('invitation', wsId, email, role);
    const link = new URL(url);
    const c = new ConsoleClient(t.baseUrl);
    const res = await c.submit(link.pathname + link.search, '/console/invitations/accept', {
      token: link.searchParams.get('token')!,
      password: PASSWORD,
    });
    expect(res.status).toBe(303);
    return c;
  };

  /** Registers a client over plain HTTP (RFC 7591). */
  const register = async (body: Record<string, unknown>) => {
    const res = await fetch(`${t.baseUrl}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  };

  const token = async (form: Record<string, string>) => {
    const res = await fetch(`${t.baseUrl}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(form).toString(),
    });
    return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, any> };
  };

  const authorizeQuery = (clientId: string, challenge: string, extra: Record<string, string> = {}) =>
    new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: callback.url,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      state: 'st-1',
      resource: `${t.baseUrl}/mcp`,
      scope: 'channels:read posts:read posts:write',
      ...extra,
    });

  /** Consent through the console without a browser: the code the approval redirects with. */
  const consentByHttp = async (
    console_: ConsoleClient,
    query: URLSearchParams,
    choice: { workspaceId: string; scopes: string[]; decision?: string },
  ) => {
    const path = `/console/oauth/authorize?${query.toString()}`;
    const form = new URLSearchParams({ ...Object.fromEntries(query), workspaceId: choice.workspaceId });
    form.set('decision', choice.decision ?? 'approve');
    const csrf = await console_.csrf(path);
    const body = `${form.toString()}&${choice.scopes.map((s) => `scopes=${encodeURIComponent(s)}`).join('&')}&_csrf=${encodeURIComponent(csrf)}`;
    const res = await fetch(`${t.baseUrl}/console/oauth/authorize`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: console_.cookieHeader, 'content-type': 'application/x-www-form-urlencoded' },
      body,
    });
    return { status: res.status, location: res.headers.get('location'), text: await res.text() };
  };

  const restAs = (accessToken: string, path: string) =>
    fetch(`${t.baseUrl}${path}`, { headers: { authorization: `Bearer ${accessToken}` } });

  beforeAll(async () => {
    await callback.start();
    t = await TestApp.start({
      env: { MCP_OAUTH_REGISTRATIONS_PER_HOUR: '12', MCP_OAUTH_ACCESS_TOKEN_TTL_SECONDS: '600' },
    });
    const ws = await t.createWorkspace('oauth-ws');
    workspaceId = ws.workspaceId;
    wsKey = ws.key;
    channelId = await t.connectChannel(ws.key, 'sandbox', { name: 'OAuth' });
    otherWorkspaceId = (await t.createWorkspace('oauth-other')).workspaceId;
    await join(workspaceId, 'owner');
    await join(otherWorkspaceId, 'member');
    browser = await launchChromium();
    page = await (await browser.newContext()).newPage();
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await callback.stop();
  });

  it('publishes authorization-server metadata (RFC 8414) that the protected resource names', async () => {
    const prm = await (await fetch(`${t.baseUrl}/.well-known/oauth-protected-resource/mcp`)).json();
    expect(prm).toMatchObject({ resource: `${t.baseUrl}/mcp`, authorization_servers: [t.baseUrl] });
    const meta = await discoverAuthorizationServerMetadata(t.baseUrl);
    expect(meta).toMatchObject({
      issuer: t.baseUrl,
      authorization_endpoint: `${t.baseUrl}/oauth/authorize`,
      token_endpoint: `${t.baseUrl}/oauth/token`,
      registration_endpoint: `${t.baseUrl}/oauth/register`,
      revocation_endpoint: `${t.baseUrl}/oauth/revoke`,
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['none'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
    });
    expect(meta!.scopes_supported).toEqual(expect.arrayContaining(['posts:read', 'posts:publish', 'keys:manage']));
  });

  it('registers public clients with https or loopback redirect URIs only', async () => {
    const ok = await register({ client_name: 'Good', redirect_uris: ['https://agent.example.com/cb'], extra: 1 });
    expect(ok.status).toBe(201);
    expect(ok.body).toMatchObject({
      client_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      token_endpoint_auth_method: 'none',
      redirect_uris: ['https://agent.example.com/cb'],
    });
    expect((await register({ redirect_uris: ['http://agent.example.com/cb'] })).body).toMatchObject({
      error: 'invalid_redirect_uri',
      error_description: expect.stringContaining('loopback'),
    });
    expect((await register({ redirect_uris: [] })).body.error).toBe('invalid_redirect_uri');
    expect((await register({ redirect_uris: Array(11).fill('https://a.example/cb') })).status).toBe(400);
    expect(
      (await register({ redirect_uris: ['https://a.example/cb'], token_endpoint_auth_method: 'client_secret_basic' }))
        .body.error,
    ).toBe('invalid_client_metadata');
    expect((await register({ redirect_uris: ['https://a.example/cb'], client_name: 'x'.repeat(101) })).status).toBe(
      400,
    );
  });

  it('runs the whole dance with the SDK client: register, authorize in Chromium, token, call, refresh, revoke', async () => {
    const agent = new AgentStore(callback.url, 'channels:read posts:read posts:write');
    const url = new URL(`${t.baseUrl}/mcp`);
    // 1. The first connection is refused; the SDK discovers, registers and asks us to open the authorization URL.
    const first = new Client({ name: 'e2e-agent', version: '1.0.0' });
    await expect(first.connect(new StreamableHTTPClientTransport(url, { authProvider: agent }))).rejects.toThrow(
      UnauthorizedError,
    );
    expect(agent.info?.client_id).toBeTruthy();
    const authUrl = agent.authorizationUrl!;
    expect(authUrl.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authUrl.searchParams.get('resource')).toBe(`${t.baseUrl}/mcp`);

    // 2. The person signs in to the console, picks the workspace and scopes, approves.
    const arrived = callback.next();
    await page.goto(authUrl.toString());
    await page.waitForURL('**/console/login?next=*');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL('**/console/oauth/authorize?*');
    await page.getByRole('heading', { name: 'Authorize E2E Agent?' }).waitFor();
    await screenshot(page, 'oauth-consent');
    await page.locator('main select[name="workspaceId"]').selectOption(workspaceId);
    // What the agent asked for (the SDK asks for the scopes the protected resource lists) is ticked, nothing else.
    const requested = authUrl.searchParams.get('scope')!.split(' ');
    expect(requested).toEqual(expect.arrayContaining(['posts:read', 'posts:write', 'channels:read']));
    const boxes = page.locator('main input[name="scopes"]');
    for (let i = 0; i < (await boxes.count()); i++) {
      const box = boxes.nth(i);
      const scope = (await box.getAttribute('value'))!;
      expect({ scope, checked: await box.isChecked() }).toEqual({ scope, checked: requested.includes(scope) });
      // The person grants less: drafting and reading channels only.
      if (scope === 'posts:write' || scope === 'channels:read') await box.check();
      else await box.uncheck();
    }
    await page.getByRole('button', { name: 'Approve' }).click();
    const response = await arrived;
    expect(response.get('state')).toBeTruthy();
    expect(response.get('iss')).toBe(t.baseUrl);
    const code = response.get('code')!;
    expect(code).toBeTruthy();

    // 3. The SDK exchanges the code (PKCE) and stores the tokens.
    const transport = new StreamableHTTPClientTransport(url, { authProvider: agent });
    await transport.finishAuth(code);
    const tokens = agent.saved!;
    expect(tokens).toMatchObject({ token_type: 'Bearer', expires_in: 600, scope: 'posts:write channels:read' });
    expect(tokens.access_token).toMatch(/^spo_at_/);
    expect(tokens.refresh_token).toMatch(/^spo_rt_/);
    // Stored hashed only.
    const stored = JSON.stringify(await t.dataSource.query('SELECT * FROM oauth_tokens'));
    expect(stored).not.toContain(tokens.access_token);
    expect(stored).not.toContain(tokens.refresh_token!);

    // 4. The agent calls tools over /mcp within its scopes, and is refused outside them.
    const client = new Client({ name: 'e2e-agent', version: '1.0.0' });
    await client.connect(transport);
    const channels = await call(client, 'list_channels', {});
    expect(channels.isError).toBeFalsy();
    expect((channels.structuredContent as any).data.map((c: { id: string }) => c.id)).toEqual([channelId]);
    const draft = await call(client, 'create_post', { content: 'Drafted through OAuth', channelIds: [channelId] });
    expect(draft.structuredContent).toMatchObject({ status: 'draft' });
    const outside = await call(client, 'get_post', { id: (draft.structuredContent as any).id });
    expect(outside.isError).toBe(true);
    expect(outside.structuredContent).toMatchObject({
      error: 'FORBIDDEN',
      message: expect.stringContaining('posts:read'),
    });
    const scheduled = await call(client, 'create_post', {
      content: 'Scheduled through OAuth',
      channelIds: [channelId],
      scheduledAt: new Date(Date.now() + 3_600_000).toISOString(),
    });
    // Without posts:publish, what the agent schedules waits for a person.
    expect(scheduled.structuredContent).toMatchObject({ status: 'pending_approval' });

    // 5. The same token on the REST API, with the same scope checks and the key's rate-limit headers.
    const rest = await restAs(tokens.access_token, '/api/channels');
    expect(rest.status).toBe(200);
    expect(rest.headers.get('x-ratelimit-limit')).toBeTruthy();
    expect((await restAs(tokens.access_token, '/api/webhooks')).status).toBe(403);

    // 6. Refresh (the SDK's call): new tokens; the old refresh token is spent.
    const meta = (await discoverAuthorizationServerMetadata(t.baseUrl))!;
    const refreshed = await refreshAuthorization(t.baseUrl, {
      metadata: meta,
      clientInformation: agent.info!,
      refreshToken: tokens.refresh_token!,
      resource: url,
    });
    expect(refreshed.access_token).not.toBe(tokens.access_token);
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
    expect((await restAs(refreshed.access_token, '/api/channels')).status).toBe(200);

    // 7. The console lists the agent with its scopes and last use.
    await page.goto(`${t.baseUrl}/console/agents`);
    const row = page.getByTestId('agent-row');
    await expect(row.count()).resolves.toBe(1);
    const text = (await row.textContent())!;
    expect(text).toContain('E2E Agent');
    expect(text).toContain('posts:write, channels:read');
    expect(text).not.toContain('never');
    await screenshot(page, 'oauth-agents');

    // 8. Revocation (RFC 7009) by the agent: the next call is refused, over MCP and REST.
    const revoked = await fetch(`${t.baseUrl}/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: refreshed.refresh_token!, client_id: agent.info!.client_id }).toString(),
    });
    expect(revoked.status).toBe(200);
    expect((await restAs(refreshed.access_token, '/api/channels')).status).toBe(401);
    const mcp401 = await fetch(url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${refreshed.access_token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(mcp401.status).toBe(401);
    expect(mcp401.headers.get('www-authenticate')).toContain('error="invalid_token"');
    expect((await token({ grant_type: 'refresh_token', refresh_token: refreshed.refresh_token! })).body.error).toBe(
      'invalid_grant',
    );
    await client.close();
    await page.goto(`${t.baseUrl}/console/agents`);
    expect(await page.getByTestId('agent-row').count()).toBe(0);
  }, 120_000);

  it('revokes an agent from the console: its next call is refused', async () => {
    const { body: client } = await register({ client_name: 'Console-revoked agent', redirect_uris: [callback.url] });
    const { verifier, challenge } = pkce();
    const arrived = callback.next();
    // Signed in already (the browser session of the previous test): straight to the consent page.
    await page.goto(`${t.baseUrl}/oauth/authorize?${authorizeQuery(client.client_id, challenge).toString()}`);
    await page.getByRole('heading', { name: 'Authorize Console-revoked agent?' }).waitFor();
    await page.getByRole('button', { name: 'Approve' }).click();
    const code = (await arrived).get('code')!;
    const issued = await token({
      grant_type: 'authorization_code',
      code,
      code_verifier: verifier,
      redirect_uri: callback.url,
      client_id: client.client_id,
    });
    expect({ status: issued.status, body: issued.body }).toMatchObject({ status: 200 });
    expect(issued.headers.get('cache-control')).toBe('no-store');
    expect((await restAs(issued.body.access_token, '/api/posts')).status).toBe(200);

    await page.goto(`${t.baseUrl}/console/agents`);
    await page.getByRole('link', { name: 'Revoke agent Console-revoked agent' }).click();
    await page.getByTestId('confirm-action').click();
    await page.waitForURL('**/console/agents');
    await page.getByText('Console-revoked agent was revoked.').waitFor();
    expect((await restAs(issued.body.access_token, '/api/posts')).status).toBe(401);
    const refresh = await token({ grant_type: 'refresh_token', refresh_token: issued.body.refresh_token });
    expect(refresh.body.error).toBe('invalid_grant');
  }, 60_000);

  it('answers CORS preflights for agents in browsers, and revocation of an unknown token with 200', async () => {
    const preflight = await fetch(`${t.baseUrl}/oauth/token`, {
      method: 'OPTIONS',
      headers: { origin: 'https://agent.example', 'access-control-request-method': 'POST' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
    const meta = await fetch(`${t.baseUrl}/.well-known/oauth-authorization-server`);
    expect(meta.headers.get('access-control-allow-origin')).toBe('*');
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    const unknown = await fetch(`${t.baseUrl}/oauth/revoke`, { method: 'POST', headers: form, body: 'token=nonsense' });
    expect(unknown.status).toBe(200);
    const missing = await fetch(`${t.baseUrl}/oauth/revoke`, { method: 'POST', headers: form, body: 'x=1' });
    expect(missing.status).toBe(400);
    expect(await missing.json()).toMatchObject({ error: 'invalid_request' });
  });

  describe('over plain HTTP', () => {
    let console_: ConsoleClient;
    let clientId: string;

    beforeAll(async () => {
      console_ = new ConsoleClient(t.baseUrl);
      const login = await console_.submit('/console/login', '/console/login', { email, password: PASSWORD });
      expect(login.status).toBe(303);
      clientId = (await register({ client_name: 'HTTP agent', redirect_uris: [callback.url] })).body.client_id;
    });

    const codeFor = async (challenge: string, scopes = ['posts:read']) => {
      const res = await consentByHttp(console_, authorizeQuery(clientId, challenge), { workspaceId, scopes });
      expect(res.status).toBe(303);
      return new URL(res.location!).searchParams.get('code')!;
    };

    it('sends the browser from /oauth/authorize to the console, and to the sign-in with the way back', async () => {
      const { challenge } = pkce();
      const query = authorizeQuery(clientId, challenge);
      const res = await fetch(`${t.baseUrl}/oauth/authorize?${query.toString()}`, { redirect: 'manual' });
      expect(res.status).toBe(302);
      expect(res.headers.get('location')).toBe(`/console/oauth/authorize?${query.toString()}`);
      const anonymous = await new ConsoleClient(t.baseUrl).request(
        'GET',
        `/console/oauth/authorize?${query.toString()}`,
      );
      expect(anonymous.status).toBe(303);
      expect(anonymous.location).toBe(
        `/console/login?next=${encodeURIComponent(`/console/oauth/authorize?${query.toString()}`)}`,
      );
      // `next` never leaves the consent page.
      const evil = new ConsoleClient(t.baseUrl);
      const signedIn = await evil.submit('/console/login', '/console/login', {
        email,
        password: PASSWORD,
        next: 'https://evil.example/',
      });
      expect(signedIn.location).toBe('/console/keys');
    });

    it('refuses plain PKCE, a missing challenge and a foreign resource at the client, and unknown clients on the page', async () => {
      const { challenge } = pkce();
      for (const [extra, error] of [
        [{ code_challenge_method: 'plain' }, 'invalid_request'],
        [{ code_challenge: '' }, 'invalid_request'],
        [{ response_type: 'token' }, 'unsupported_response_type'],
        [{ resource: 'https://elsewhere.example/mcp' }, 'invalid_target'],
      ] as const) {
        const res = await console_.request(
          'GET',
          `/console/oauth/authorize?${authorizeQuery(clientId, challenge, extra).toString()}`,
        );
        expect(res.status).toBe(303);
        const back = new URL(res.location!);
        expect(`${back.origin}${back.pathname}`).toBe(callback.url);
        expect({ extra, error: back.searchParams.get('error') }).toEqual({ extra, error });
        expect(back.searchParams.get('state')).toBe('st-1');
      }
      const unknown = await console_.request(
        'GET',
        `/console/oauth/authorize?${authorizeQuery('00000000-0000-4000-8000-000000000000', challenge).toString()}`,
      );
      expect(unknown.status).toBe(404);
      const foreign = await console_.request(
        'GET',
        `/console/oauth/authorize?${authorizeQuery(clientId, challenge, { redirect_uri: 'https://evil.example/cb' }).toString()}`,
      );
      expect(foreign.status).toBe(400);
      expect(foreign.text).toContain('not one this agent registered');
    });

    it('grants no more than the person may do in the chosen workspace, and tells the client of a denial', async () => {
      const { challenge } = pkce();
      const query = authorizeQuery(clientId, challenge);
      const beyond = await consentByHttp(console_, query, {
        workspaceId: otherWorkspaceId,
        scopes: ['posts:read', 'posts:approve'],
      });
      expect(beyond.status).toBe(403);
      expect(beyond.text).toContain('posts:approve');
      const none = await consentByHttp(console_, query, { workspaceId, scopes: [] });
      expect(none.status).toBe(400);
      const denied = await consentByHttp(console_, query, { workspaceId, scopes: ['posts:read'], decision: 'deny' });
      expect(new URL(denied.location!).searchParams.get('error')).toBe('access_denied');
    });

    it('checks the code: PKCE verifier, redirect URI, single use (a replay revokes what it gave), expiry', async () => {
      const { verifier, challenge } = pkce();
      const code = await codeFor(challenge);
      const base = { grant_type: 'authorization_code', code, redirect_uri: callback.url, client_id: clientId };
      expect((await token({ ...base, code_verifier: pkce().verifier })).body.error).toBe('invalid_grant');
      // The failed attempt spent the code.
      expect((await token({ ...base, code_verifier: verifier })).body.error).toBe('invalid_grant');

      const second = pkce();
      const code2 = await codeFor(second.challenge);
      const wrongRedirect = await token({
        ...base,
        code: code2,
        code_verifier: second.verifier,
        redirect_uri: 'https://agent.example.com/cb',
      });
      expect(wrongRedirect.body.error).toBe('invalid_grant');

      const third = pkce();
      const code3 = await codeFor(third.challenge);
      const good = await token({ ...base, code: code3, code_verifier: third.verifier });
      expect(good.status).toBe(200);
      expect((await restAs(good.body.access_token, '/api/posts')).status).toBe(200);
      const replay = await token({ ...base, code: code3, code_verifier: third.verifier });
      expect(replay.body.error).toBe('invalid_grant');
      expect((await restAs(good.body.access_token, '/api/posts')).status).toBe(401);

      const fourth = pkce();
      const code4 = await codeFor(fourth.challenge);
      await t.dataSource.query(`UPDATE oauth_authorization_codes SET expires_at = now() - interval '1 second'`);
      expect((await token({ ...base, code: code4, code_verifier: fourth.verifier })).body).toMatchObject({
        error: 'invalid_grant',
        error_description: expect.stringContaining('expired'),
      });
      expect((await token({ grant_type: 'password', username: 'x' })).body.error).toBe('unsupported_grant_type');
    });

    it('rotates refresh tokens: reusing a rotated one revokes the whole family', async () => {
      const { verifier, challenge } = pkce();
      const code = await codeFor(challenge, ['posts:read', 'channels:read']);
      const first = await token({
        grant_type: 'authorization_code',
        code,
        code_verifier: verifier,
        redirect_uri: callback.url,
        client_id: clientId,
      });
      const second = await token({
        grant_type: 'refresh_token',
        refresh_token: first.body.refresh_token,
        client_id: clientId,
      });
      expect(second.status).toBe(200);
      expect(second.body.scope).toBe('posts:read channels:read');
      const third = await token({ grant_type: 'refresh_token', refresh_token: second.body.refresh_token });
      expect(third.status).toBe(200);
      expect((await restAs(third.body.access_token, '/api/channels')).status).toBe(200);
      // The first refresh token again: someone else holds a copy. Everything of the grant ends.
      const reuse = await token({ grant_type: 'refresh_token', refresh_token: first.body.refresh_token });
      expect(reuse.body.error).toBe('invalid_grant');
      expect((await restAs(third.body.access_token, '/api/channels')).status).toBe(401);
      expect((await token({ grant_type: 'refresh_token', refresh_token: third.body.refresh_token })).body.error).toBe(
        'invalid_grant',
      );
    });

    it('refuses an expired access token and keeps grant keys out of the key list', async () => {
      const { verifier, challenge } = pkce();
      const code = await codeFor(challenge);
      const issued = await token({
        grant_type: 'authorization_code',
        code,
        code_verifier: verifier,
        redirect_uri: callback.url,
      });
      const hash = createHash('sha256').update(issued.body.access_token).digest('hex');
      await t.dataSource.query(
        `UPDATE oauth_tokens SET expires_at = now() - interval '1 second' WHERE token_hash = $1`,
        [hash],
      );
      // A fresh lookup (the in-process cache holds an entry 5 s at most; this token was never looked up).
      expect((await restAs(issued.body.access_token, '/api/posts')).status).toBe(401);
      // Each grant stands on a key of kind oauth in the workspace; the workspace's key list shows none of them.
      const [{ count }] = await t.dataSource.query(
        `SELECT count(*)::int AS count FROM api_keys WHERE kind = 'oauth' AND workspace_id = $1`,
        [workspaceId],
      );
      expect(count).toBeGreaterThan(0);
      const keys = await fetch(`${t.baseUrl}/api/api-keys`, { headers: { 'x-api-key': wsKey } });
      expect(((await keys.json()) as { data: Array<{ name: string }> }).data.map((k) => k.name)).toEqual(['test']);
    });

    it('names an access token in its refusals, and keeps the API key wording for keys', async () => {
      const { verifier, challenge } = pkce();
      const code = await codeFor(challenge, ['posts:read']);
      const issued = await token({
        grant_type: 'authorization_code',
        code,
        code_verifier: verifier,
        redirect_uri: callback.url,
      });
      const accessToken: string = issued.body.access_token;
      const message = async (res: Response) => ((await res.json()) as { message: string }).message;
      const bearer = (credential: string) => ({ authorization: `Bearer ${credential}` });
      const draft = { content: 'Not allowed', channelIds: [channelId] };

      // Outside its scopes: over REST and as an MCP tool error.
      const rest = await t.request('POST', '/api/posts', { headers: bearer(accessToken), body: draft });
      expect(rest.status).toBe(403);
      expect(rest.body.message).toMatch(/^This access token lacks the scope posts:write \(/);
      const agent = new Client({ name: 'scoped-agent', version: '1.0.0' });
      await agent.connect(
        new StreamableHTTPClientTransport(new URL(`${t.baseUrl}/mcp`), {
          requestInit: { headers: bearer(accessToken) },
        }),
      );
      const tool = await call(agent, 'create_post', draft);
      expect(tool.structuredContent).toMatchObject({
        error: 'FORBIDDEN',
        message: expect.stringMatching(/^This access token lacks the scope posts:write /),
      });
      await agent.close();

      // Unknown, a refresh token in its place, and (below) expired and revoked.
      expect(await message(await restAs(generateOAuthToken('access'), '/api/posts'))).toBe(
        'Invalid or expired access token',
      );
      expect(await message(await restAs('spo_at_not-even-well-formed', '/api/posts'))).toBe(
        'Invalid or expired access token',
      );
      expect(await message(await restAs(issued.body.refresh_token, '/api/posts'))).toBe(
        'A refresh token cannot authenticate a request; send the access token',
      );

      // Revoked by the agent: the next call says so, over REST and over /mcp (with RFC 6750's invalid_token).
      const revoked = await fetch(`${t.baseUrl}/oauth/revoke`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ token: accessToken }).toString(),
      });
      expect(revoked.status).toBe(200);
      const afterRevoke = await restAs(accessToken, '/api/posts');
      expect(afterRevoke.status).toBe(401);
      expect(await message(afterRevoke)).toBe("This access token's grant was revoked");
      const mcp = await fetch(`${t.baseUrl}/mcp`, {
        method: 'POST',
        headers: {
          ...bearer(accessToken),
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      expect(mcp.status).toBe(401);
      expect(mcp.headers.get('www-authenticate')).toContain('error="invalid_token"');
      expect(await message(mcp)).toBe("This access token's grant was revoked");

      // Expired: the lookup finds no live token.
      const second = pkce();
      const live = await token({
        grant_type: 'authorization_code',
        code: await codeFor(second.challenge),
        code_verifier: second.verifier,
        redirect_uri: callback.url,
      });
      const hash = createHash('sha256').update(live.body.access_token).digest('hex');
      await t.dataSource.query(
        `UPDATE oauth_tokens SET expires_at = now() - interval '1 second' WHERE token_hash = $1`,
        [hash],
      );
      expect(await message(await restAs(live.body.access_token, '/api/posts'))).toBe('Invalid or expired access token');

      // API keys keep the contract's words.
      expect(await message(await fetch(`${t.baseUrl}/api/posts`))).toBe('API key required');
      expect(await message(await fetch(`${t.baseUrl}/api/posts`, { headers: { 'x-api-key': generateApiKey() } }))).toBe(
        'Invalid API key',
      );
      const readOnly = await t.request('POST', '/api/api-keys', {
        key: wsKey,
        body: { name: 'read only', scopes: ['posts:read'] },
      });
      const byKey = await t.request('POST', '/api/posts', { key: readOnly.body.key, body: draft });
      expect(byKey.body.message).toMatch(/^This API key lacks the scope posts:write \(/);
    });

    it('limits registrations per address', async () => {
      let last = 0;
      for (let i = 0; i < 12 && last !== 429; i++) {
        last = (await register({ client_name: `flood ${i}`, redirect_uris: ['https://a.example/cb'] })).status;
      }
      expect(last).toBe(429);
    });
  });
});
