import { makePng } from '../factories/png.factory';
import { LINKEDIN_ROUTES, LinkedInFake } from '../fakes/linkedin.fake';
import { MediaClient } from '../media/media-support';
import { waitFor } from '../support/publishing-env';
import { TestApp } from '../support/test-app';
import { browse, CLIENT_ORIGIN, pathOf, PUBLIC_BASE_URL, useOAuthApp } from './oauth-harness';

const ALICE = 'urn:li:person:aliceMember1';
const ACME = 'urn:li:organization:2414183';
const BETA = 'urn:li:organization:5515715';

describe('OAuth connection of LinkedIn (against the fake)', () => {
  const li = new LinkedInFake({
    refreshLatencyMs: 300,
    rateLimitResetSeconds: 2,
    members: [
      {
        sub: 'aliceMember1',
        name: 'Alice Example',
        roles: [
          { organizationId: '2414183', role: 'ADMINISTRATOR' },
          { organizationId: '5515715', role: 'CONTENT_ADMINISTRATOR' },
          { organizationId: '7777777', role: 'ANALYST' }, // may not post: not a target
          { organizationId: '8888888', role: 'ADMINISTRATOR', state: 'REQUESTED' }, // not approved: not a target
        ],
      },
      { sub: 'bobMember2', name: 'Bob Solo' },
    ],
    organizations: [
      { id: '2414183', localizedName: 'Acme Corp', vanityName: 'acme' },
      { id: '5515715', localizedName: 'Beta Labs', vanityName: 'beta-labs' },
      { id: '7777777', localizedName: 'Analysts Inc', vanityName: 'analysts' },
      { id: '8888888', localizedName: 'Pending Co', vanityName: 'pending' },
    ],
  });
  const h = useOAuthApp('linkedin', li);
  let t: TestApp;
  let key: string;
  let workspaceId: string;
  beforeAll(() => ({ t, key, workspaceId } = h));

  const {
    start,
    channelCount,
    connectionCount,
    getPost,
    publishNow,
    settled,
    expireStoredToken,
    authorize,
    getConnection,
    choose,
    connectTargets,
  } = h;

  describe('GET /api/providers', () => {
    it('lists LinkedIn as an enabled OAuth network with its limits', async () => {
      const res = await t.request('GET', '/api/providers', { key });
      expect(res.body.data.find((p: any) => p.id === 'linkedin')).toEqual({
        id: 'linkedin',
        name: 'LinkedIn',
        connect: 'oauth',
        apiVersion: expect.stringMatching(/^\d{6}$/),
        apiSunset: expect.stringMatching(/^\d{4}-\d{2}-01$/),
        optionsSchema: null,
        enabled: true,
        limits: {
          maxCharacters: 3000,
          maxMedia: 20,
          maxImageBytes: 5 * 1024 * 1024,
          supportedMimeTypes: ['image/jpeg', 'image/png', 'image/gif', 'video/mp4', 'video/quicktime', 'video/webm'],
          threads: false,
          video: expect.objectContaining({ minDurationSeconds: 3, maxDurationSeconds: 1800, maxPerPost: 1 }),
          firstComment: true,
        },
      });
    });
  });

  describe('the authorization-code flow', () => {
    it("answers LinkedIn's authorization URL with the scopes, a state and PKCE", async () => {
      const res = await start();
      expect(res.status).toBe(201);
      const url = new URL(res.body.authorizationUrl);
      expect(url.origin + url.pathname).toBe(`${li.baseUrl}/oauth/v2/authorization`);
      expect(Object.fromEntries(url.searchParams)).toEqual({
        response_type: 'code',
        client_id: li.clientId,
        redirect_uri: `${PUBLIC_BASE_URL}/api/oauth/linkedin/callback`,
        scope:
          'openid profile w_member_social r_member_postAnalytics w_organization_social r_organization_social rw_organization_admin',
        state: res.body.state,
        code_challenge: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
        code_challenge_method: 'S256',
      });
    });

    it('lists the member and the pages they may post as, and creates nothing before the choice', async () => {
      const channels = await channelCount();
      const query = await authorize();
      expect(query.get('channelId')).toBeNull();
      const connectionId = query.get('connectionId')!;
      expect(connectionId).toMatch(/^[0-9a-f-]{36}$/);
      expect(await channelCount()).toBe(channels);

      const res = await getConnection(connectionId);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        id: connectionId,
        provider: 'linkedin',
        expiresAt: expect.any(String),
        targets: [
          {
            id: ALICE,
            kind: 'personal',
            name: 'Alice Example',
            handle: 'Alice Example',
            avatarUrl: `${li.baseUrl}/avatars/aliceMember1.jpg`,
            profileUrl: null,
            channelId: null,
          },
          {
            id: ACME,
            kind: 'organization',
            name: 'Acme Corp',
            handle: 'acme',
            avatarUrl: null,
            profileUrl: 'https://www.linkedin.com/company/acme',
            channelId: null,
          },
          expect.objectContaining({ id: BETA, kind: 'organization', name: 'Beta Labs' }),
        ],
      });
      // The tokens and accounts are sealed in the pending row.
      const [row] = await t.dataSource.query(`SELECT targets FROM oauth_connections WHERE id = $1`, [connectionId]);
      expect(row.targets).toMatch(/^v1\./);
      expect(row.targets).not.toContain('Alice');
    });

    it('creates one channel per chosen target, sharing the tokens, and uses the connection once', async () => {
      const connectionId = (await authorize()).get('connectionId')!;
      const res = await choose(connectionId, [ALICE, ACME]);
      expect(res.status).toBe(201);
      expect(res.body.data).toEqual([
        expect.objectContaining({ provider: 'linkedin', status: 'active', name: 'Alice Example' }),
        expect.objectContaining({ provider: 'linkedin', status: 'active', name: 'Acme Corp', handle: 'acme' }),
      ]);
      expect(res.body.data[0]).not.toHaveProperty('credentials');
      const ids = res.body.data.map((c: { id: string }) => c.id);
      const rows = await t.dataSource.query(
        `SELECT external_id, credentials_group, credentials FROM channels WHERE id = ANY($1) ORDER BY external_id`,
        [ids],
      );
      expect(rows.map((r: any) => r.external_id)).toEqual([ACME, ALICE]);
      expect(rows[0].credentials_group).toBe(connectionId);
      expect(rows[1].credentials_group).toBe(connectionId);
      expect(rows[0].credentials).toMatch(/^v1\./);

      expect((await choose(connectionId, [BETA])).status).toBe(409);
      expect((await getConnection(connectionId)).status).toBe(409);

      // Connecting again shows the existing channels, and choosing them reactivates them.
      await t.request('DELETE', `/api/channels/${ids[1]}`, { key });
      const again = (await authorize()).get('connectionId')!;
      const listed = (await getConnection(again)).body.targets;
      expect(listed.find((x: any) => x.id === ACME).channelId).toBe(ids[1]);
      const reactivated = await choose(again, [ACME]);
      expect(reactivated.body.data[0]).toEqual(expect.objectContaining({ id: ids[1], status: 'active' }));
    });

    it('refuses unknown targets without using the connection, and keeps connections to their workspace', async () => {
      const connectionId = (await authorize()).get('connectionId')!;
      const unknown = await choose(connectionId, ['urn:li:organization:7777777']);
      expect(unknown.status).toBe(400);
      expect(unknown.body.error).toBe('VALIDATION_ERROR');
      expect((await choose(connectionId, [])).status).toBe(400);

      const other = await t.createWorkspace();
      expect((await getConnection(connectionId, other.key)).status).toBe(404);
      expect((await choose(connectionId, [BETA], other.key)).status).toBe(404);
      expect((await t.request('GET', '/api/channels', { key: other.key })).body.data).toHaveLength(0);
      expect((await getConnection('not-a-uuid')).status).toBe(400);
      expect((await getConnection('00000000-0000-4000-8000-000000000000')).status).toBe(404);

      const res = await choose(connectionId, [BETA]);
      expect(res.status).toBe(201);
      const [{ n }] = await t.dataSource.query(
        `SELECT count(*)::int AS n FROM channels WHERE provider = 'linkedin' AND workspace_id <> $1`,
        [workspaceId],
      );
      expect(n).toBe(0);
    });

    it('refuses an expired connection', async () => {
      const connectionId = (await authorize()).get('connectionId')!;
      await t.dataSource.query(`UPDATE oauth_connections SET expires_at = now() - interval '1 second' WHERE id = $1`, [
        connectionId,
      ]);
      expect((await getConnection(connectionId)).status).toBe(409);
      const res = await choose(connectionId, [ALICE]);
      expect(res.status).toBe(409);
      expect(res.body.message).toMatch(/expired/);
    });

    it('lists the targets on a small page when there is no redirectUri', async () => {
      const res = await start();
      const done = await browse(t, pathOf(await li.consent(res.body.authorizationUrl)));
      expect(done.status).toBe(200);
      expect(done.headers.get('content-type')).toContain('text/html');
      expect(done.text).toContain('Acme Corp');
      const connectionId = /id="connection-id">([0-9a-f-]{36})</.exec(done.text)![1];
      expect((await getConnection(connectionId)).status).toBe(200);
    });

    it('connects a member without pages directly, redirecting with the channel id', async () => {
      li.signInAs('bobMember2');
      try {
        const query = await authorize();
        expect(query.get('connectionId')).toBeNull();
        const channel = await t.request('GET', `/api/channels/${query.get('channelId')}`, { key });
        expect(channel.body).toEqual(expect.objectContaining({ provider: 'linkedin', name: 'Bob Solo' }));
      } finally {
        li.signInAs('aliceMember1');
      }
    });

    it('refuses a replayed state and an expired one, creating nothing', async () => {
      const res = await start({ redirectUri: `${CLIENT_ORIGIN}/done` });
      const callback = pathOf(await li.consent(res.body.authorizationUrl));
      expect((await browse(t, callback)).status).toBe(302);
      const before = [await channelCount(), await connectionCount()];
      const replay = await browse(t, callback);
      expect(replay.status).toBe(400);
      expect(replay.text).toContain('invalid_state');

      const late = await start({ redirectUri: `${CLIENT_ORIGIN}/done` });
      const lateCallback = pathOf(await li.consent(late.body.authorizationUrl));
      await t.dataSource.query(`UPDATE oauth_states SET expires_at = now() - interval '1 second'`);
      const tokenCalls = li.requests.filter((r) => r.route === LINKEDIN_ROUTES.token).length;
      const expired = await browse(t, lateCallback);
      expect(expired.status).toBe(302);
      expect(new URL(expired.headers.get('location')!).searchParams.get('error')).toBe('expired_state');
      expect(li.requests.filter((r) => r.route === LINKEDIN_ROUTES.token)).toHaveLength(tokenCalls);
      expect([await channelCount(), await connectionCount()]).toEqual(before);
    });

    it("puts the pending connection in the starting workspace only, and refuses another network's callback", async () => {
      const other = await t.createWorkspace();
      const connectionId = (await authorize(other.key)).get('connectionId')!;
      expect((await getConnection(connectionId)).status).toBe(404);
      expect((await getConnection(connectionId, other.key)).status).toBe(200);

      const res = await start();
      const callback = new URL(await li.consent(res.body.authorizationUrl));
      const foreign = await browse(t, `/api/oauth/x/callback${callback.search}`);
      expect(foreign.status).toBe(400);
      expect(foreign.text).toContain('invalid_state');
    });

    it('refuses a tampered redirectUri and a foreign one', async () => {
      expect((await start({ redirectUri: 'https://evil.example/steal' })).status).toBe(400);
      const res = await start({ redirectUri: `${CLIENT_ORIGIN}/done` });
      const callback = await li.consent(res.body.authorizationUrl);
      const before = [await channelCount(), await connectionCount()];
      const tampered = await browse(
        t,
        `${pathOf(callback)}&redirectUri=${encodeURIComponent('https://evil.example/steal')}`,
      );
      expect(tampered.status).toBe(400);
      expect(tampered.text).toContain('redirect_mismatch');
      expect(tampered.headers.get('location')).toBeNull();
      expect([await channelCount(), await connectionCount()]).toEqual(before);
    });

    it('sends a cancelled consent back to redirectUri with error=access_denied', async () => {
      const res = await start({ redirectUri: `${CLIENT_ORIGIN}/done` });
      const done = await browse(t, pathOf(await li.consent(res.body.authorizationUrl, 'cancel')));
      expect(done.status).toBe(302);
      expect(new URL(done.headers.get('location')!).searchParams.get('error')).toBe('access_denied');
    });
  });

  describe('publishing as the member and as a page', () => {
    let member: string;
    let page: string;
    let pagePostId: string;
    let memberPostId: string;
    beforeAll(async () => {
      // A fresh workspace of its own would not matter: the channels are Alice's and Acme's either way.
      [member, page] = await connectTargets([ALICE, ACME]);
    });

    it('publishes text and an image, each channel as its own author, with reserved characters escaped', async () => {
      const text = 'Launch (beta) of a_b [v2] #launch see https://example.com/a_(b)';
      const asMember = await settled(await publishNow(member, text));
      expect(asMember.status).toBe('published');
      memberPostId = asMember.id;
      const onLinkedIn = li.posts.find((p) => p.id === asMember.targets[0].platformPostId)!;
      expect(onLinkedIn.author).toBe(ALICE);
      expect(onLinkedIn.text).toBe(text); // nothing cut off
      expect(asMember.targets[0].url).toBe(`https://www.linkedin.com/feed/update/${onLinkedIn.id}`);

      const png = makePng(40, 30);
      const client = new MediaClient(t, key);
      const init = await client.initialize({ filename: 'i.png', mimeType: 'image/png', size: png.length });
      await client.chunk(init.body.id, 0, png);
      expect((await client.finalize(init.body.id)).body.status).toBe('ready');
      const asPage = await settled(await publishNow(page, 'page image post', [init.body.id]));
      expect(asPage.status).toBe('published');
      pagePostId = asPage.id;
      const pagePost = li.posts.find((p) => p.id === asPage.targets[0].platformPostId)!;
      expect(pagePost.author).toBe(ACME);
      expect(pagePost.images).toHaveLength(1);
      const upload = li.requests.filter((r) => r.route === LINKEDIN_ROUTES.upload).at(-1)!;
      expect(upload.bodyBytes).toBe(png.length);
      // Every REST call carried the versioned API headers.
      const create = li.requests.filter((r) => r.route === LINKEDIN_ROUTES.createPost).at(-1)!;
      expect(create.headers['linkedin-version']).toMatch(/^\d{6}$/);
      expect(create.headers['x-restli-protocol-version']).toBe('2.0.0');
    });

    it('comments on the page post as the page (socialActions/{urn}/comments); a 503 retries the comment alone', async () => {
      li.failNext(1, 503, LINKEDIN_ROUTES.createComment);
      const id = await publishNow(page, 'page post with a comment', [], { firstComment: 'page comment (details)' });
      const post = await waitFor(
        () => getPost(id),
        (p) => p.status === 'published' && p.targets[0].firstComment?.status !== 'pending',
      );
      const urn = post.targets[0].platformPostId;
      const comments = li.comments.filter((c) => c.text === 'page comment (details)');
      expect(comments).toEqual([expect.objectContaining({ actor: ACME, object: urn })]);
      expect(post.targets[0]).toEqual(
        expect.objectContaining({
          status: 'published',
          attempts: 1,
          firstComment: expect.objectContaining({
            status: 'published',
            platformId: comments[0].urn,
            url: `https://www.linkedin.com/feed/update/${urn}`,
          }),
        }),
      );
      // The retry looked among the post's comments before commenting again.
      expect(li.requests.filter((r) => r.route === LINKEDIN_ROUTES.listComments)).toHaveLength(1);
    });

    it('reads the page share statistics and the member post analytics', async () => {
      const pageUrn = (await getPost(pagePostId)).targets[0].platformPostId;
      const memberUrn = (await getPost(memberPostId)).targets[0].platformPostId;
      li.setCounts(pageUrn, { likes: 4, reposts: 3, replies: 2, impressions: 99 });
      li.setCounts(memberUrn, { likes: 7, reposts: 1, replies: 5, impressions: 40 });
      for (const id of [pagePostId, memberPostId]) {
        expect((await t.request('POST', `/api/analytics/posts/${id}/refresh`, { key, body: {} })).status).toBe(202);
      }
      const read = (id: string) =>
        waitFor(
          async () => (await t.request('GET', `/api/analytics/posts/${id}`, { key })).body,
          (a) => a.collectedAt !== null,
        );
      expect((await read(pagePostId)).targets[0].metrics).toEqual({
        likes: 4,
        reposts: 3,
        replies: 2,
        quotes: null,
        impressions: 99,
      });
      expect((await read(memberPostId)).targets[0].metrics).toEqual({
        likes: 7,
        reposts: 1,
        replies: 5,
        quotes: null,
        impressions: 40,
      });
    });

    it("applies LinkedIn's limits in validation", async () => {
      const validate = (content: string) =>
        t.request('POST', '/api/posts/validate', { key, body: { content, channelIds: [page] } });
      expect((await validate('x'.repeat(3000))).body.valid).toBe(true);
      const tooLong = await validate('x'.repeat(3001));
      expect(tooLong.body.valid).toBe(false);
      expect(JSON.stringify(tooLong.body)).toContain('LinkedIn allows 3000');
    });

    it('refreshes the shared tokens once for 20 concurrent publishes on the member and the page', async () => {
      li.expireAccessTokens();
      await expireStoredToken(member);
      await expireStoredToken(page);
      const refreshesBefore = li.refreshCount;
      const ids = await Promise.all(
        Array.from({ length: 20 }, (_, i) => publishNow(i % 2 ? page : member, `concurrent ${i}`)),
      );
      const posts = await Promise.all(ids.map((id) => settled(id)));
      expect(posts.map((p) => p.status)).toEqual(Array(20).fill('published'));
      expect(li.refreshCount - refreshesBefore).toBe(1);

      // The rotated tokens went to both channels: a refresh through the page serves the member too.
      li.expireAccessTokens();
      await expireStoredToken(page);
      expect((await settled(await publishNow(page, 'after second expiry'))).status).toBe('published');
      expect(li.refreshCount - refreshesBefore).toBe(2);
      expect((await settled(await publishNow(member, 'member after second expiry'))).status).toBe('published');
      expect(li.refreshCount - refreshesBefore).toBe(2);
    });

    it('waits for Retry-After after a 429 and publishes once', async () => {
      li.failNext(1, 429, LINKEDIN_ROUTES.createPost);
      const post = await settled(await publishNow(page, 'rate limited post'));
      expect(post.status).toBe('published');
      expect(post.targets[0].attempts).toBe(2);
      const calls = li.requests.filter((r) => r.route === LINKEDIN_ROUTES.createPost).slice(-2);
      expect(calls[1].at - calls[0].at).toBeGreaterThanOrEqual(1000); // Retry-After (2 s), not the 200 ms retry delay
      expect(li.posts.filter((p) => p.text === 'rate limited post')).toHaveLength(1);
    });

    it('finds the page post on its recent posts when the answer was lost, and posts nothing more', async () => {
      li.failAfterCreateNext(503);
      const creates = li.requests.filter((r) => r.route === LINKEDIN_ROUTES.createPost).length;
      const post = await settled(await publishNow(page, 'page answer lost'));
      expect(post.status).toBe('published');
      expect(post.targets[0].attempts).toBe(2);
      const onLinkedIn = li.posts.filter((p) => p.text === 'page answer lost');
      expect(onLinkedIn).toHaveLength(1);
      expect(post.targets[0].platformPostId).toBe(onLinkedIn[0].id);
      expect(li.requests.filter((r) => r.route === LINKEDIN_ROUTES.createPost).length - creates).toBe(1);
    });

    it("takes the member post LinkedIn names as a duplicate when the member's posts cannot be read", async () => {
      li.failAfterCreateNext(503);
      const before = li.requests.length;
      const post = await settled(await publishNow(member, 'member answer lost'));
      expect(post.status).toBe('published');
      const onLinkedIn = li.posts.filter((p) => p.text === 'member answer lost');
      expect(onLinkedIn).toHaveLength(1);
      expect(post.targets[0].platformPostId).toBe(onLinkedIn[0].id);
      // The lookup was refused (r_member_social is not granted), the second create answered DUPLICATE_POST.
      const calls = li.requests.slice(before).map((r) => r.route);
      expect(calls.filter((r) => r === LINKEDIN_ROUTES.findPosts).length).toBeGreaterThanOrEqual(1);
      expect(calls.filter((r) => r === LINKEDIN_ROUTES.createPost)).toHaveLength(2);
    });

    it('fails a first attempt that LinkedIn refuses as a duplicate, without posting', async () => {
      const first = await settled(await publishNow(page, 'said twice'));
      expect(first.status).toBe('published');
      const second = await settled(await publishNow(page, 'said twice'));
      expect(second.status).toBe('failed');
      expect(second.targets[0].error.code).toBe('CONTENT_REJECTED');
      expect(li.posts.filter((p) => p.text === 'said twice')).toHaveLength(1);
    });

    it('fails the target at once, naming the setting, when LinkedIn answers that the version is retired (426)', async () => {
      li.retiredVersions.add('202610');
      try {
        const post = await settled(await publishNow(page, 'on a retired version'));
        expect(post.status).toBe('failed');
        expect(post.targets[0].attempts).toBe(1);
        expect(post.targets[0].error).toEqual({
          code: 'API_VERSION_RETIRED',
          message: expect.stringMatching(/version 202610.*set LINKEDIN_API_VERSION to a current version/),
        });
        expect(li.posts.filter((p) => p.text === 'on a retired version')).toHaveLength(0);
      } finally {
        li.retiredVersions.clear();
      }
    });

    it('maps a 5xx to a retry', async () => {
      li.failNext(1, 500, LINKEDIN_ROUTES.createPost);
      const post = await settled(await publishNow(member, 'after a 500'));
      expect(post.status).toBe('published');
      expect(post.targets[0].attempts).toBe(2);
    });

    // Last: it disconnects the channels.
    it('disconnects every channel of the authorization and records channel.disconnected when the refresh token is refused', async () => {
      li.revokeRefreshTokens();
      li.expireAccessTokens();
      await expireStoredToken(member);
      await expireStoredToken(page);
      const post = await settled(await publishNow(member, 'after revocation'));
      expect(post.status).toBe('failed');
      expect(post.targets[0].error.code).toBe('CREDENTIALS_REVOKED');
      for (const id of [member, page]) {
        const [row] = await t.dataSource.query(
          `SELECT status, disconnect_reason, credentials FROM channels WHERE id = $1`,
          [id],
        );
        expect(row).toEqual({ status: 'disconnected', disconnect_reason: 'credentials_revoked', credentials: null });
      }
      const events = await t.request('GET', '/api/events?type=channel.disconnected', { key });
      for (const id of [member, page]) {
        expect(events.body.data.some((e: any) => e.data.id === id && e.data.reason === 'credentials_revoked')).toBe(
          true,
        );
      }
    });
  });
});
