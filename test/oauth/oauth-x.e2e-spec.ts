import sharp from 'sharp';
import { makePng } from '../factories/png.factory';
import { X_ROUTES, XFake } from '../fakes/x.fake';
import { MediaClient } from '../media/media-support';
import { waitFor } from '../support/publishing-env';
import { TestApp } from '../support/test-app';
import { browse, CLIENT_ORIGIN, pathOf, PUBLIC_BASE_URL, useOAuthApp } from './oauth-harness';

describe('OAuth connection of X (against the fake)', () => {
  const x = new XFake({ refreshLatencyMs: 300, rateLimitResetSeconds: 2 });
  const h = useOAuthApp('x', x);
  let t: TestApp;
  let key: string;
  let workspaceId: string;
  beforeAll(() => ({ t, key, workspaceId } = h));

  const { start, channelCount, getPost, publishNow, settled, expireStoredToken, connect } = h;

  describe('GET /api/providers', () => {
    it('lists every provider with how it connects, whether it is enabled and its limits', async () => {
      const res = await t.request('GET', '/api/providers', { key });
      expect(res.status).toBe(200);
      const byId = Object.fromEntries(res.body.data.map((p: any) => [p.id, p]));
      expect(byId.mastodon).toEqual(expect.objectContaining({ connect: 'credentials', enabled: true }));
      expect(byId.x).toEqual({
        id: 'x',
        name: 'X',
        connect: 'oauth',
        apiVersion: '2',
        apiSunset: null,
        optionsSchema: null,
        enabled: true,
        limits: expect.objectContaining({ maxCharacters: 280, maxMedia: 4 }),
      });
    });

    it('needs an API key', async () => {
      expect((await t.request('GET', '/api/providers')).status).toBe(401);
    });
  });

  describe('the authorization-code flow', () => {
    it('answers an authorization URL with PKCE S256, a state and a 10-minute expiry', async () => {
      const before = Date.now();
      const res = await start();
      expect(res.status).toBe(201);
      const url = new URL(res.body.authorizationUrl);
      expect(url.origin + url.pathname).toBe(`${x.baseUrl}/i/oauth2/authorize`);
      expect(Object.fromEntries(url.searchParams)).toEqual({
        response_type: 'code',
        client_id: x.clientId,
        redirect_uri: `${PUBLIC_BASE_URL}/api/oauth/x/callback`,
        scope: 'tweet.read tweet.write users.read media.write offline.access',
        state: res.body.state,
        code_challenge: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
        code_challenge_method: 'S256',
      });
      const ttl = Date.parse(res.body.expiresAt) - before;
      expect(ttl).toBeGreaterThan(599_000);
      expect(ttl).toBeLessThanOrEqual(601_000);
      const rows = await t.dataSource.query(`SELECT state_hash, code_verifier FROM oauth_states`);
      expect(JSON.stringify(rows)).not.toContain(res.body.state);
    });

    it('connects the account: consent, callback, redirect to redirectUri with the channel id', async () => {
      const channelId = await connect();
      const channel = await t.request('GET', `/api/channels/${channelId}`, { key });
      expect(channel.body).toEqual(
        expect.objectContaining({ provider: 'x', status: 'active', handle: '@contract_x', name: 'Contract X' }),
      );
      expect(channel.body).not.toHaveProperty('credentials');
      // The stored credentials are sealed: no token appears in the row.
      const [row] = await t.dataSource.query(`SELECT credentials FROM channels WHERE id = $1`, [channelId]);
      expect(row.credentials).toMatch(/^v1\./);
      // The fake's tokens are `at-` / `rt-` and 16 hex digits; a short `at-` may occur in the base64url by chance.
      expect(row.credentials).not.toMatch(/(at|rt)-[0-9a-f]{16}/);
    });

    it('reactivates the same channel when the account connects again', async () => {
      const first = await connect();
      await t.request('DELETE', `/api/channels/${first}`, { key });
      const again = await connect();
      expect(again).toBe(first);
      expect((await t.request('GET', `/api/channels/${first}`, { key })).body.status).toBe('active');
    });

    it('shows a small page when there is no redirectUri', async () => {
      const res = await start();
      const done = await browse(t, pathOf(await x.consent(res.body.authorizationUrl)));
      expect([200, 201]).toContain(done.status);
      expect(done.headers.get('content-type')).toContain('text/html');
      expect(done.text).toContain('Account connected');
    });

    it('refuses a replayed state with an error page and creates nothing', async () => {
      const res = await start();
      const callback = pathOf(await x.consent(res.body.authorizationUrl));
      expect((await browse(t, callback)).status).toBeLessThan(300);
      const count = await channelCount();
      const replay = await browse(t, callback);
      expect(replay.status).toBe(400);
      expect(replay.headers.get('content-type')).toContain('text/html');
      expect(replay.text).toContain('invalid_state');
      expect(await channelCount()).toBe(count);
    });

    it('refuses an expired state and creates nothing', async () => {
      const res = await start();
      const callback = pathOf(await x.consent(res.body.authorizationUrl));
      await t.dataSource.query(`UPDATE oauth_states SET expires_at = now() - interval '1 second'`);
      const count = await channelCount();
      const tokenCalls = x.requests.filter((r) => r.route === X_ROUTES.token).length;
      const done = await browse(t, callback);
      expect(done.status).toBe(400);
      expect(done.text).toContain('expired_state');
      expect(await channelCount()).toBe(count);
      expect(x.requests.filter((r) => r.route === X_ROUTES.token)).toHaveLength(tokenCalls); // no code exchange
    });

    it('refuses unknown and foreign states (another provider) with an error page', async () => {
      const unknown = await browse(t, '/api/oauth/x/callback?code=abc&state=not-a-state');
      expect(unknown.status).toBe(400);
      expect(unknown.text).toContain('invalid_state');
      const res = await start();
      const callback = new URL(await x.consent(res.body.authorizationUrl));
      const count = await channelCount();
      const foreign = await browse(t, `/api/oauth/mastodon/callback${callback.search}`);
      expect(foreign.status).toBe(400);
      expect(await channelCount()).toBe(count);
    });

    it('creates the channel in the workspace that started the authorization, never another', async () => {
      const other = await t.createWorkspace();
      const before = (await t.request('GET', '/api/channels', { key: other.key })).body.data.length;
      await connect(key);
      expect((await t.request('GET', '/api/channels', { key: other.key })).body.data).toHaveLength(before);
      const [{ n }] = await t.dataSource.query(
        `SELECT count(*)::int AS n FROM channels WHERE provider = 'x' AND workspace_id <> $1`,
        [workspaceId],
      );
      expect(n).toBe(0);
    });

    it('refuses a redirectUri on a foreign origin, and a callback whose redirectUri was tampered with', async () => {
      const foreign = await start({ redirectUri: 'https://evil.example/steal' });
      expect(foreign.status).toBe(400);
      expect(foreign.body.error).toBe('VALIDATION_ERROR');
      expect((await start({ redirectUri: 'javascript:alert(1)' })).status).toBe(400);

      const res = await start({ redirectUri: `${CLIENT_ORIGIN}/done` });
      const callback = await x.consent(res.body.authorizationUrl);
      const count = await channelCount();
      const tampered = await browse(
        t,
        `${pathOf(callback)}&redirectUri=${encodeURIComponent('https://evil.example/steal')}`,
      );
      expect(tampered.status).toBe(400);
      expect(tampered.text).toContain('redirect_mismatch');
      expect(tampered.headers.get('location')).toBeNull();
      expect(await channelCount()).toBe(count);
    });

    it('sends a refused consent back to redirectUri with error=access_denied', async () => {
      const res = await start({ redirectUri: `${CLIENT_ORIGIN}/done` });
      x.denyNext();
      const done = await browse(t, pathOf(await x.consent(res.body.authorizationUrl)));
      expect(done.status).toBe(302);
      expect(new URL(done.headers.get('location')!).searchParams.get('error')).toBe('access_denied');
    });

    it('refuses credentials sent to POST /api/channels for an OAuth network', async () => {
      const res = await t.request('POST', '/api/channels', {
        key,
        body: { provider: 'x', credentials: { accessToken: 'a', apiBaseUrl: x.baseUrl } },
      });
      expect(res.status).toBe(400);
    });

    it('the callback is public, the connect endpoint is not', async () => {
      expect((await t.request('POST', '/api/channels/connect/x', { body: {} })).status).toBe(401);
      expect((await t.request('POST', '/api/channels/connect/nope', { key, body: {} })).status).toBe(404);
      expect((await t.request('POST', '/api/channels/connect/mastodon', { key, body: {} })).status).toBe(400);
    });
  });

  describe('publishing with the OAuth tokens', () => {
    let channelId: string;
    let imagePostId: string;
    beforeAll(async () => {
      channelId = await connect();
    });

    it('publishes text and an image, and reads the public metrics', async () => {
      const text = await settled(await publishNow(channelId, 'oauth text post'));
      expect(text.status).toBe('published');

      const png = makePng(40, 30);
      const client = new MediaClient(t, key);
      const init = await client.initialize({ filename: 'i.png', mimeType: 'image/png', size: png.length });
      await client.chunk(init.body.id, 0, png);
      expect((await client.finalize(init.body.id)).body.status).toBe('ready');
      const image = await settled(await publishNow(channelId, 'oauth image post', [init.body.id]));
      expect(image.status).toBe('published');
      imagePostId = image.id;
      const tweet = x.tweets.find((tw) => tw.id === image.targets[0].platformPostId)!;
      expect(tweet.mediaIds).toHaveLength(1);
      expect(x.requests.filter((r) => r.route === X_ROUTES.mediaAppend).length).toBeGreaterThanOrEqual(1);

      // An animated GIF goes up as tweet_gif: X's fake refuses image/gif under tweet_image, as X does.
      const gif = await sharp(makePng(40, 30)).gif().toBuffer();
      const gifInit = await client.initialize({ filename: 'g.gif', mimeType: 'image/gif', size: gif.length });
      await client.chunk(gifInit.body.id, 0, gif);
      expect((await client.finalize(gifInit.body.id)).body.status).toBe('ready');
      const gifPost = await settled(await publishNow(channelId, 'oauth gif post', [gifInit.body.id]));
      expect(gifPost.status).toBe('published');
      expect(x.uploads).toContainEqual({ mediaType: 'image/gif', category: 'tweet_gif' });

      x.setCounts(tweet.id, { likes: 4, reposts: 3, replies: 2, quotes: 1, impressions: 99 });
      const refresh = await t.request('POST', `/api/analytics/posts/${image.id}/refresh`, { key, body: {} });
      expect(refresh.status).toBe(202);
      const analytics = await waitFor(
        async () => (await t.request('GET', `/api/analytics/posts/${image.id}`, { key })).body,
        (a) => a.collectedAt !== null,
      );
      expect(analytics.targets[0].metrics).toEqual({ likes: 4, reposts: 3, replies: 2, quotes: 1, impressions: 99 });
    });

    it('counts text as X does in validation (URLs as 23)', async () => {
      const url = `https://example.com/${'a'.repeat(300)}`;
      const ok = await t.request('POST', '/api/posts/validate', {
        key,
        body: { content: `${'b'.repeat(250)} ${url}`, channelIds: [channelId] },
      });
      expect(ok.status).toBe(200);
      expect(ok.body.valid).toBe(true);
      const tooLong = await t.request('POST', '/api/posts/validate', {
        key,
        body: { content: '字'.repeat(141), channelIds: [channelId] },
      });
      expect(tooLong.body.valid).toBe(false);
    });

    it('warns, without refusing, when the text to X carries a link (pay-per-use pricing)', async () => {
      const body = {
        content: 'Read the changelog: https://example.com/changelog',
        channelIds: [channelId],
        thread: [{ content: 'And the docs at www.example.com/docs' }, { content: 'No link here' }],
      };
      const checked = await t.request('POST', '/api/posts/validate', { key, body });
      expect(checked.status).toBe(200);
      expect(checked.body.valid).toBe(true);
      expect(checked.body.problems).toEqual([]);
      expect(checked.body.warnings).toEqual([
        { channelId, field: 'content', message: expect.stringContaining('pay-per-use') },
        { channelId, field: 'thread[0].content', message: expect.stringContaining('carries a link') },
      ]);
      const plain = await t.request('POST', '/api/posts/validate', {
        key,
        body: { content: 'No link at all', channelIds: [channelId] },
      });
      expect(plain.body).toEqual({ valid: true, problems: [], warnings: [] });
      // A warning never refuses: the post is accepted.
      const created = await t.request('POST', '/api/posts', { key, body });
      expect(created.status).toBe(201);
      expect((await t.request('DELETE', `/api/posts/${created.body.id}`, { key })).status).toBe(204);
    });

    it('refreshes an expired access token once for 20 concurrent publishes, storing the rotated refresh token', async () => {
      x.expireAccessTokens();
      await expireStoredToken(channelId);
      const refreshesBefore = x.refreshCount;
      const ids = await Promise.all(Array.from({ length: 20 }, (_, i) => publishNow(channelId, `concurrent ${i}`)));
      const posts = await Promise.all(ids.map((id) => settled(id)));
      expect(posts.map((p) => p.status)).toEqual(Array(20).fill('published'));
      expect(x.refreshCount - refreshesBefore).toBe(1);
      // The rotated refresh token was stored: a second expiry refreshes again without error.
      x.expireAccessTokens();
      await expireStoredToken(channelId);
      expect((await settled(await publishNow(channelId, 'after second expiry'))).status).toBe('published');
      expect(x.refreshCount - refreshesBefore).toBe(2);
    });

    it('waits for x-rate-limit-reset after a 429 and publishes once', async () => {
      x.failNext(1, 429, X_ROUTES.createTweet);
      const post = await settled(await publishNow(channelId, 'rate limited post'));
      expect(post.status).toBe('published');
      expect(post.targets[0].attempts).toBe(2);
      const calls = x.requests.filter((r) => r.route === X_ROUTES.createTweet).slice(-2);
      expect(calls[1].at - calls[0].at).toBeGreaterThanOrEqual(1000); // the reset (2 s), not the 200 ms retry delay
      expect(x.tweets.filter((tw) => tw.text === 'rate limited post')).toHaveLength(1);
    });

    it('does not post twice when the network created the post but the answer was lost', async () => {
      x.failAfterCreateNext(503);
      const post = await settled(await publishNow(channelId, 'answer lost post'));
      expect(post.status).toBe('published');
      expect(post.targets[0].attempts).toBe(2);
      const onX = x.tweets.filter((tw) => tw.text === 'answer lost post');
      expect(onX).toHaveLength(1);
      expect(post.targets[0].platformPostId).toBe(onX[0].id);
    });

    it('refreshes an expired access token before reading metrics', async () => {
      x.expireAccessTokens();
      await expireStoredToken(channelId);
      const refreshesBefore = x.refreshCount;
      const before = (await t.request('GET', `/api/analytics/posts/${imagePostId}`, { key })).body.collectedAt;
      const tweetId = (await getPost(imagePostId)).targets[0].platformPostId;
      x.setCounts(tweetId, { likes: 10 });
      expect((await t.request('POST', `/api/analytics/posts/${imagePostId}/refresh`, { key, body: {} })).status).toBe(
        202,
      );
      const analytics = await waitFor(
        async () => (await t.request('GET', `/api/analytics/posts/${imagePostId}`, { key })).body,
        (a) => a.collectedAt !== null && a.collectedAt > before,
      );
      expect(analytics.targets[0].metrics.likes).toBe(10);
      expect(x.refreshCount - refreshesBefore).toBe(1);
    });

    // Last: it disconnects the channel.
    it('disconnects the channel (credentials_revoked) and records channel.disconnected when the refresh token is refused', async () => {
      x.revokeRefreshTokens();
      x.expireAccessTokens();
      await expireStoredToken(channelId);
      const post = await settled(await publishNow(channelId, 'after revocation'));
      expect(post.status).toBe('failed');
      expect(post.targets[0].error.code).toBe('CREDENTIALS_REVOKED');
      const channel = (await t.request('GET', `/api/channels/${channelId}`, { key })).body;
      expect(channel.status).toBe('disconnected');
      const [row] = await t.dataSource.query(`SELECT disconnect_reason, credentials FROM channels WHERE id = $1`, [
        channelId,
      ]);
      expect(row).toEqual({ disconnect_reason: 'credentials_revoked', credentials: null });
      const events = await t.request('GET', '/api/events?type=channel.disconnected', { key });
      expect(
        events.body.data.some((e: any) => e.data.id === channelId && e.data.reason === 'credentials_revoked'),
      ).toBe(true);
    });
  });
});

describe('OAuth network without app credentials', () => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await TestApp.start({ env: { X_CLIENT_ID: '', X_CLIENT_SECRET: '' } });
    ({ key } = await t.createWorkspace());
  });
  afterAll(async () => t?.close());

  it('is listed disabled and its connect answers a clear 400', async () => {
    const list = await t.request('GET', '/api/providers', { key });
    expect(list.body.data.find((p: any) => p.id === 'x')).toEqual(expect.objectContaining({ enabled: false }));
    const res = await t.request('POST', '/api/channels/connect/x', { key, body: {} });
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/not enabled on this server/);
  });
});
