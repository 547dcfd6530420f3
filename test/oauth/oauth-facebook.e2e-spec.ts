import { FACEBOOK_ROUTES, FacebookFake } from '../fakes/facebook.fake';
import { waitFor } from '../support/publishing-env';
import type { TestApp } from '../support/test-app';
import { useOAuthApp } from './oauth-harness';

const ACME = '110000000000001';
const BETA = '110000000000002';
const ANALYSTS = '110000000000003';

describe('Facebook Pages (OAuth, choosing Pages, against the fake)', () => {
  const fb = new FacebookFake({
    rateLimitMinutes: 1,
    pages: [
      { id: ACME, name: 'Acme Corp', username: 'acme', tasks: ['ANALYZE', 'ADVERTISE', 'MODERATE', 'CREATE_CONTENT'] },
      { id: BETA, name: 'Beta Labs', username: 'betalabs', tasks: ['CREATE_CONTENT', 'MANAGE'] },
      { id: ANALYSTS, name: 'Analysts Inc', username: 'analysts', tasks: ['ANALYZE'] }, // may not post
    ],
  });
  // Facebook downloads media from our signed URLs: the app's public address is its real one.
  const h = useOAuthApp('facebook', fb, { reachable: true });
  let t: TestApp;
  let key: string;
  let publicBaseUrl: string;
  let acme: string;
  let beta: string;
  beforeAll(async () => {
    ({ t, key, publicBaseUrl } = h);
  });

  const { start } = h;
  const postsWithText = (text: string) => fb.posts.filter((p) => p.text === text);
  const channel = async (id: string) => (await t.request('GET', `/api/channels/${id}`, { key })).body;
  const pageOf = (postId: string) => postId.split('_')[0];

  it('lists Facebook as an enabled OAuth network with its limits', async () => {
    const res = await t.request('GET', '/api/providers', { key });
    expect(res.body.data.find((p: { id: string }) => p.id === 'facebook')).toEqual({
      id: 'facebook',
      name: 'Facebook',
      connect: 'oauth',
      apiVersion: expect.stringMatching(/^v\d+\.\d+$/),
      apiSunset: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
      optionsSchema: expect.objectContaining({
        type: 'object',
        additionalProperties: false,
        properties: { videoFormat: expect.objectContaining({ enum: ['reel', 'video'] }) },
      }),
      enabled: true,
      limits: {
        maxCharacters: 63_206,
        maxMedia: 10,
        maxImageBytes: 10 * 1024 * 1024,
        supportedMimeTypes: ['image/jpeg', 'image/png', 'image/gif'],
        threads: false,
        // One video per post, alone: a Page video of up to 1 GB and 20 minutes, or a Reel.
        video: {
          maxBytes: 1024 * 1024 * 1024,
          minDurationSeconds: 1,
          maxDurationSeconds: 1200,
          mimeTypes: ['video/mp4', 'video/quicktime', 'video/webm'],
          maxPerPost: 1,
          videoCodecs: ['h264', 'hevc'],
          audioCodecs: ['aac'],
          mixWithImages: false,
        },
        firstComment: true,
      },
    });
  });

  describe('connecting: the user chooses the Pages', () => {
    it("answers Facebook's login dialog URL with comma-separated Page scopes", async () => {
      const res = await start();
      const url = new URL(res.body.authorizationUrl);
      expect(url.origin + url.pathname).toMatch(new RegExp(`^${fb.baseUrl}/v\\d+\\.\\d+/dialog/oauth$`));
      expect(url.searchParams.get('scope')).toBe(
        'pages_show_list,pages_manage_posts,pages_read_engagement,read_insights',
      );
    });

    it('lists the Pages the user may publish to, swapping the code for a long-lived user token first', async () => {
      const exchanges = fb.exchangeCount;
      const connectionId = (await h.authorize()).get('connectionId')!;
      expect(connectionId).toMatch(/^[0-9a-f-]{36}$/);
      expect(fb.exchangeCount - exchanges).toBe(1);
      const listed = await h.getConnection(connectionId);
      expect(listed.body.targets).toEqual([
        {
          id: ACME,
          kind: 'organization',
          name: 'Acme Corp',
          handle: '@acme',
          avatarUrl: `${fb.baseUrl}/pictures/${ACME}.jpg`,
          profileUrl: 'https://www.facebook.com/acme',
          channelId: null,
        },
        expect.objectContaining({ id: BETA, kind: 'organization', name: 'Beta Labs' }),
      ]);
      const chosen = await h.choose(connectionId, [ACME, BETA]);
      expect(chosen.status).toBe(201);
      [acme, beta] = chosen.body.data.map((c: { id: string }) => c.id);
      for (const [id, pageId] of [
        [acme, ACME],
        [beta, BETA],
      ]) {
        const stored = await h.storedCredentials(id);
        // Each channel keeps its own Page token, which does not expire.
        expect(stored).toEqual(expect.objectContaining({ pageId, expiresAt: null, refreshToken: null }));
      }
      expect((await h.storedCredentials(acme)).accessToken).not.toBe((await h.storedCredentials(beta)).accessToken);
    });
  });

  describe('publishing as a Page', () => {
    it('publishes text on each Page with its own Page token', async () => {
      const a = await h.settled(await h.publishNow(acme, 'Hello from Acme'));
      const b = await h.settled(await h.publishNow(beta, 'Hello from Beta'));
      expect([a.status, b.status]).toEqual(['published', 'published']);
      expect(pageOf(a.targets[0].platformPostId)).toBe(ACME);
      expect(pageOf(b.targets[0].platformPostId)).toBe(BETA);
      const [onFb] = postsWithText('Hello from Acme');
      expect(a.targets[0].url).toBe(onFb.permalink);
    });

    it('publishes a link post with the first URL as its link', async () => {
      const text = 'Read the launch notes https://example.com/notes?id=1.';
      const post = await h.settled(await h.publishNow(acme, text));
      expect(post.status).toBe('published');
      expect(postsWithText(text)[0].link).toBe('https://example.com/notes?id=1');
    });

    it('publishes a photo that Facebook downloads from our signed URL, and several photos as one post', async () => {
      const one = await h.uploadPng(40, 30);
      const photo = await h.settled(await h.publishNow(acme, 'one photo', [one]));
      expect(photo.status).toBe('published');
      const [single] = postsWithText('one photo');
      expect(single.images).toEqual([expect.objectContaining({ status: 200, contentType: 'image/png' })]);
      expect(single.images[0].url.split('?')[0]).toBe(`${publicBaseUrl}/api/media/${one}/content`);
      const fetches = fb.requests.filter((r) => r.route === FACEBOOK_ROUTES.photos).length;
      const two = await h.uploadPng(30, 30);
      const album = await h.settled(await h.publishNow(acme, 'two photos', [one, two]));
      expect(album.status).toBe('published');
      expect(postsWithText('two photos')[0].images).toHaveLength(2);
      // Two unpublished photos, then one feed post attaching them.
      expect(fb.requests.filter((r) => r.route === FACEBOOK_ROUTES.photos).length - fetches).toBe(2);
    });

    it('reads reactions, comments, shares and views', async () => {
      const id = await h.publishNow(acme, 'measured on Facebook');
      expect((await h.settled(id)).status).toBe('published');
      const [onFb] = postsWithText('measured on Facebook');
      fb.setCounts(onFb.id, { likes: 9, replies: 4, reposts: 2, impressions: 300 });
      const analytics = await h.analytics(id);
      expect(analytics.targets[0].metrics).toEqual({
        likes: 9,
        reposts: 2,
        replies: 4,
        quotes: null,
        impressions: 300,
      });
    });
  });

  describe('first comments', () => {
    it('comments on the Page post as the Page (POST /{post-id}/comments); a 503 retries the comment alone', async () => {
      fb.failNext(1, 503, FACEBOOK_ROUTES.comment);
      const id = await h.publishNow(acme, 'Facebook post with a comment', [], { firstComment: 'Facebook comment' });
      const post = await waitFor(
        () => h.getPost(id),
        (p) => p.status === 'published' && p.targets[0].firstComment?.status !== 'pending',
      );
      const [onFb] = postsWithText('Facebook post with a comment');
      const comments = fb.comments.filter((c) => c.message === 'Facebook comment');
      expect(comments).toEqual([expect.objectContaining({ objectId: onFb.id, fromId: pageOf(onFb.id) })]);
      expect(post.targets[0]).toEqual(
        expect.objectContaining({
          status: 'published',
          attempts: 1,
          firstComment: expect.objectContaining({ status: 'published', platformId: comments[0].id }),
        }),
      );
      // The retry looked among the post's comments before commenting again.
      expect(fb.requests.filter((r) => r.route === FACEBOOK_ROUTES.comments)).toHaveLength(1);
    });
  });

  describe('unknown outcomes and refusals', () => {
    it('finds the post on the Page when the answer was lost, and posts nothing more', async () => {
      fb.failAfterPublishNext(503);
      const before = fb.publishLog.length;
      const post = await h.settled(await h.publishNow(acme, 'answer lost on Facebook'));
      expect(post.status).toBe('published');
      expect(post.targets[0].attempts).toBe(2);
      const onFb = postsWithText('answer lost on Facebook');
      expect(onFb).toHaveLength(1);
      expect(post.targets[0].platformPostId).toBe(onFb[0].id);
      expect(fb.publishLog.length - before).toBe(1);
      // The retry looked the post up because the checkpoint said the create call had gone out.
      expect(fb.requests.filter((r) => r.route === FACEBOOK_ROUTES.publishedPosts).length).toBeGreaterThanOrEqual(1);
    });

    it('fails a first attempt Facebook refuses as a duplicate (#506), without posting', async () => {
      expect((await h.settled(await h.publishNow(beta, 'said twice on Facebook'))).status).toBe('published');
      const second = await h.settled(await h.publishNow(beta, 'said twice on Facebook'));
      expect(second.status).toBe('failed');
      expect(second.targets[0].error).toEqual({ code: 'CONTENT_REJECTED', message: expect.stringContaining('#506') });
      expect(postsWithText('said twice on Facebook')).toHaveLength(1);
    });

    it('waits for the time announced after a Page throttle (#32)', async () => {
      fb.throttleNext(FACEBOOK_ROUTES.feed, 32);
      const id = await h.publishNow(acme, 'throttled on Facebook');
      const pending = await waitFor(
        () => h.getPost(id),
        (p) => p.targets[0].error !== null,
      );
      expect(pending.targets[0]).toEqual(
        expect.objectContaining({
          status: 'pending',
          error: expect.objectContaining({ code: 'PROVIDER_RATE_LIMITED' }),
        }),
      );
      const [row] = await t.dataSource.query(`SELECT due_at FROM post_targets WHERE post_id = $1`, [id]);
      expect(new Date(row.due_at).getTime() - Date.now()).toBeGreaterThan(50_000);
      expect(postsWithText('throttled on Facebook')).toHaveLength(0);
      await t.request('DELETE', `/api/posts/${id}`, { key });
    });
  });

  describe('tokens', () => {
    it('disconnects the Page whose token expired (#190/463), and only that one', async () => {
      fb.expirePageTokens(BETA);
      const post = await h.settled(await h.publishNow(beta, 'after the Beta session ended'));
      expect(post.status).toBe('failed');
      expect(post.targets[0].error.code).toBe('CREDENTIALS_REVOKED');
      expect((await channel(beta)).status).toBe('disconnected');
      expect((await channel(acme)).status).toBe('active');
      const events = await h.events('channel.disconnected');
      expect(events.some((e) => e.data.id === beta && e.data.reason === 'credentials_revoked')).toBe(true);
    });

    it('disconnects the Page when its token is revoked', async () => {
      fb.revokeAll();
      const post = await h.settled(await h.publishNow(acme, 'after Facebook revocation'));
      expect(post.status).toBe('failed');
      expect(post.targets[0].error.code).toBe('CREDENTIALS_REVOKED');
      expect((await channel(acme)).status).toBe('disconnected');
      expect(postsWithText('after Facebook revocation')).toHaveLength(0);
    });
  });
});
