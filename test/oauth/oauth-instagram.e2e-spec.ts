import { INSTAGRAM_ROUTES, InstagramFake } from '../fakes/instagram.fake';
import { waitFor } from '../support/publishing-env';
import type { TestApp } from '../support/test-app';
import { useOAuthApp } from './oauth-harness';

const DAY = 86_400_000;

describe('Instagram (Instagram Login, containers, against the fake)', () => {
  const ig = new InstagramFake({ rateLimitMinutes: 1 });
  // Instagram downloads media from our signed URLs: the app's public address is its real one.
  const h = useOAuthApp('instagram', ig, {
    reachable: true,
    env: { META_CONTAINER_POLL_MS: '20', META_CONTAINER_WAIT_SECONDS: '2' },
  });
  let t: TestApp;
  let key: string;
  let publicBaseUrl: string;
  let channelId: string;
  let image: string;
  beforeAll(async () => {
    ({ t, key, publicBaseUrl } = h);
    image = await h.uploadPng(40, 30);
  });

  const { start } = h;
  const postsWithText = (text: string) => ig.posts.filter((p) => p.text === text);
  const containersWithText = (text: string) => [...ig.containers.values()].filter((c) => c.text === text);
  const channel = async () => (await t.request('GET', `/api/channels/${channelId}`, { key })).body;
  const connect = async () => {
    channelId = await h.connect();
  };
  const validate = (content: string, mediaIds: string[]) =>
    t.request('POST', '/api/posts/validate', { key, body: { content, mediaIds, channelIds: [channelId] } });

  it('lists Instagram as an enabled OAuth network with its limits', async () => {
    const res = await t.request('GET', '/api/providers', { key });
    expect(res.body.data.find((p: { id: string }) => p.id === 'instagram')).toEqual({
      id: 'instagram',
      name: 'Instagram',
      connect: 'oauth',
      apiVersion: expect.stringMatching(/^v\d+\.\d+$/),
      apiSunset: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
      optionsSchema: expect.objectContaining({
        type: 'object',
        additionalProperties: false,
        properties: expect.objectContaining({ shareToFeed: expect.any(Object), coverImage: expect.any(Object) }),
      }),
      enabled: true,
      limits: {
        maxCharacters: 2200,
        maxMedia: 10,
        maxImageBytes: 8 * 1024 * 1024,
        supportedMimeTypes: ['image/jpeg', 'image/png'],
        threads: false,
        // Reels: 3 s to 15 minutes, up to 300 MB; carousels of up to 10 mix images and videos.
        video: expect.objectContaining({
          maxBytes: 300 * 1024 * 1024,
          minDurationSeconds: 3,
          maxDurationSeconds: 900,
          mimeTypes: ['video/mp4', 'video/quicktime', 'video/webm'],
          maxPerPost: 10,
          minFrameRate: 23,
          maxFrameRate: 60,
        }),
        firstComment: true,
      },
    });
  });

  describe('connecting', () => {
    it("answers Instagram's authorization window URL with comma-separated scopes", async () => {
      const res = await start();
      const url = new URL(res.body.authorizationUrl);
      expect(url.origin + url.pathname).toBe(`${ig.baseUrl}/oauth/authorize`);
      expect(url.searchParams.get('scope')).toBe(
        'instagram_business_basic,instagram_business_content_publish,instagram_business_manage_insights',
      );
      expect(url.searchParams.get('redirect_uri')).toBe(`${publicBaseUrl}/api/oauth/instagram/callback`);
    });

    it('exchanges the code on the token host, swaps for a long-lived token and connects the professional account', async () => {
      const exchanges = ig.exchangeCount;
      await connect();
      expect(ig.exchangeCount - exchanges).toBe(1);
      expect(await channel()).toEqual(
        expect.objectContaining({ provider: 'instagram', status: 'active', handle: '@contract_ig' }),
      );
      const stored = await h.storedCredentials(channelId);
      expect(Date.parse(stored.expiresAt as string) - Date.now()).toBeGreaterThan(59 * DAY);
      expect(stored.userId).toBe(ig.accounts[0].id);
      expect(stored.scope).toBe(
        'instagram_business_basic,instagram_business_content_publish,instagram_business_manage_insights',
      );
    });
  });

  describe('validation', () => {
    it('refuses a post without an image, a caption over 2,200 characters and over 30 hashtags', async () => {
      const noImage = await validate('just text', []);
      expect(noImage.body.valid).toBe(false);
      expect(JSON.stringify(noImage.body)).toContain('need at least one image');
      expect((await validate('x'.repeat(2200), [image])).body.valid).toBe(true);
      expect(JSON.stringify((await validate('x'.repeat(2201), [image])).body)).toContain('Instagram allows 2200');
      const tags = Array.from({ length: 31 }, (_, i) => `#tag${i}`).join(' ');
      expect(JSON.stringify((await validate(tags, [image])).body)).toContain('31 hashtags; Instagram allows 30');
    });

    it('refuses an image outside the feed aspect ratios', async () => {
      const wide = await h.uploadPng(100, 40);
      const res = await validate('too wide', [wide]);
      expect(res.body.valid).toBe(false);
      expect(JSON.stringify(res.body)).toContain('aspect ratios from 4:5 to 1.91:1');
    });
  });

  describe('publishing', () => {
    it('publishes a PNG upload, which reaches Instagram as a JPEG from our signed URL', async () => {
      const post = await h.settled(await h.publishNow(channelId, 'Instagram image #launch', [image]));
      expect(post.status).toBe('published');
      const [onIg] = postsWithText('Instagram image #launch');
      expect(post.targets[0]).toEqual(
        expect.objectContaining({ platformPostId: onIg.id, url: ig.permalinkOf(onIg.id) }),
      );
      expect(onIg.images).toEqual([
        expect.objectContaining({ status: 200, contentType: 'image/jpeg', sniffed: 'image/jpeg' }),
      ]);
      const url = new URL(onIg.images[0].url);
      expect(url.origin + url.pathname).toBe(`${publicBaseUrl}/api/media/${image}/content`);
      expect(url.searchParams.get('signature')).toBeTruthy();
      // The JPEG copy is kept with the item: publishing it again converts nothing.
      const [{ n }] = await t.dataSource.query(`SELECT count(*)::int AS n FROM media_variants WHERE media_id = $1`, [
        image,
      ]);
      expect(n).toBe(1);
    });

    it('comments on the media once it is published (POST /{ig-media-id}/comments); a 503 retries the comment alone', async () => {
      ig.failNext(1, 503, INSTAGRAM_ROUTES.comment);
      const id = await h.publishNow(channelId, 'Instagram post with a comment', [image], {
        firstComment: 'Instagram comment #credits',
      });
      const post = await waitFor(
        () => h.getPost(id),
        (p) => p.status === 'published' && p.targets[0].firstComment?.status !== 'pending',
      );
      const [onIg] = postsWithText('Instagram post with a comment');
      const comments = ig.comments.filter((c) => c.message === 'Instagram comment #credits');
      expect(comments).toEqual([expect.objectContaining({ objectId: onIg.id })]);
      expect(post.targets[0]).toEqual(
        expect.objectContaining({
          status: 'published',
          attempts: 1,
          firstComment: expect.objectContaining({
            status: 'published',
            platformId: comments[0].id,
            url: ig.permalinkOf(onIg.id),
          }),
        }),
      );
      // The retry looked among the media's comments before commenting again.
      expect(ig.requests.filter((r) => r.route === INSTAGRAM_ROUTES.comments)).toHaveLength(1);
    });

    it('publishes a carousel of item containers, every image as JPEG', async () => {
      const ids = [image, await h.uploadPng(30, 30)];
      const post = await h.settled(await h.publishNow(channelId, 'Instagram carousel', ids));
      expect(post.status).toBe('published');
      const [onIg] = postsWithText('Instagram carousel');
      const carousel = ig.containers.get(onIg.containerId!)!;
      expect(carousel.mediaType).toBe('CAROUSEL');
      expect(carousel.children).toHaveLength(2);
      expect(onIg.images.map((i) => i.contentType)).toEqual(['image/jpeg', 'image/jpeg']);
    });

    it('reads views, likes, comments and shares from the media insights', async () => {
      const id = await h.publishNow(channelId, 'measured on Instagram', [image]);
      expect((await h.settled(id)).status).toBe('published');
      const [onIg] = postsWithText('measured on Instagram');
      ig.setCounts(onIg.id, { likes: 7, replies: 3, reposts: 2, impressions: 120, saves: 5 });
      const analytics = await h.analytics(id);
      expect(analytics.targets[0].metrics).toEqual({
        likes: 7,
        reposts: 2,
        replies: 3,
        quotes: null,
        impressions: 120,
      });
    });
  });

  describe('unknown outcomes: the container is reused, never published twice', () => {
    it('finds the post when the media_publish answer is lost, and publishes nothing more', async () => {
      ig.failAfterPublishNext(503);
      const post = await h.settled(await h.publishNow(channelId, 'answer lost on Instagram', [image]));
      expect(post.status).toBe('published');
      expect(post.targets[0].attempts).toBe(2);
      const onIg = postsWithText('answer lost on Instagram');
      expect(onIg).toHaveLength(1);
      expect(post.targets[0].platformPostId).toBe(onIg[0].id);
      expect(containersWithText('answer lost on Instagram')).toHaveLength(1);
      expect(ig.publishesOf(onIg[0].containerId!)).toHaveLength(1);
    });

    it('publishes the saved container after a failure between its creation and the publish', async () => {
      ig.failNext(1, 500, INSTAGRAM_ROUTES.publish);
      const post = await h.settled(await h.publishNow(channelId, 'media_publish failed once', [image]));
      expect(post.status).toBe('published');
      const containers = containersWithText('media_publish failed once');
      expect(containers).toHaveLength(1);
      expect(ig.publishesOf(containers[0].id)).toHaveLength(1);
    });
  });

  describe('rate limits', () => {
    it('holds a post while the daily publishing limit (content_publishing_limit) is used up', async () => {
      const quota = ig.quotaTotal;
      ig.quotaTotal = ig.posts.length;
      try {
        const id = await h.publishNow(channelId, 'over the Instagram quota', [image]);
        const pending = await waitFor(
          () => h.getPost(id),
          (p) => p.targets[0].error !== null,
        );
        expect(pending.targets[0]).toEqual(
          expect.objectContaining({
            status: 'pending',
            error: { code: 'PROVIDER_RATE_LIMITED', message: expect.stringContaining('publishing limit reached') },
          }),
        );
        const [row] = await t.dataSource.query(`SELECT due_at FROM post_targets WHERE post_id = $1`, [id]);
        expect(new Date(row.due_at).getTime() - Date.now()).toBeGreaterThan(3000_000); // an hour
        expect(containersWithText('over the Instagram quota')).toHaveLength(0);
        await t.request('DELETE', `/api/posts/${id}`, { key });
      } finally {
        ig.quotaTotal = quota;
      }
    });

    it('retries a throttled media_publish (#4) after the announced time with the same container', async () => {
      ig.throttleNext(INSTAGRAM_ROUTES.publish, 4);
      const id = await h.publishNow(channelId, 'throttled on Instagram', [image]);
      const pending = await waitFor(
        () => h.getPost(id),
        (p) => p.targets[0].error !== null,
      );
      expect(pending.targets[0].error.code).toBe('PROVIDER_RATE_LIMITED');
      const [row] = await t.dataSource.query(`SELECT due_at FROM post_targets WHERE post_id = $1`, [id]);
      expect(new Date(row.due_at).getTime() - Date.now()).toBeGreaterThan(50_000);
      expect(containersWithText('throttled on Instagram')).toHaveLength(1); // kept for the retry
      expect(postsWithText('throttled on Instagram')).toHaveLength(0);
      await t.request('DELETE', `/api/posts/${id}`, { key });
    });
  });

  describe('tokens', () => {
    it('renews the long-lived token (ig_refresh_token) once for concurrent publishes when 30 days are left', async () => {
      ig.ageTokens(40 * DAY);
      await h.setStoredExpiry(channelId, new Date(Date.now() + 20 * DAY));
      const refreshes = ig.refreshCount;
      const ids = await Promise.all(
        Array.from({ length: 10 }, (_, i) => h.publishNow(channelId, `ig renewal ${i}`, [image])),
      );
      const posts = await Promise.all(ids.map((id) => h.settled(id)));
      expect(posts.map((p) => p.status)).toEqual(Array(10).fill('published'));
      expect(ig.refreshCount - refreshes).toBe(1);
    });

    it('disconnects the channel when the token expired and can no longer be renewed', async () => {
      ig.expireTokens();
      await h.setStoredExpiry(channelId, new Date(Date.now() - 1000));
      const post = await h.settled(await h.publishNow(channelId, 'after Instagram expiry', [image]));
      expect(post.status).toBe('failed');
      expect(post.targets[0].error.code).toBe('CREDENTIALS_REVOKED');
      expect((await channel()).status).toBe('disconnected');
      const events = await h.events('channel.disconnected');
      expect(events.some((e) => e.data.id === channelId && e.data.reason === 'credentials_revoked')).toBe(true);
    });

    it('disconnects the channel when Instagram refuses a revoked token (#190)', async () => {
      await connect();
      ig.revokeAll();
      const post = await h.settled(await h.publishNow(channelId, 'after Instagram revocation', [image]));
      expect(post.status).toBe('failed');
      expect(post.targets[0].error.code).toBe('CREDENTIALS_REVOKED');
      expect((await channel()).status).toBe('disconnected');
      expect(postsWithText('after Instagram revocation')).toHaveLength(0);
    });
  });
});
