import { OAUTH_REFRESH_JOB } from '../../src/oauth/oauth-refresh.job';
import { PeriodicJobs } from '../../src/scheduling/periodic-jobs.service';
import { THREADS_ROUTES, ThreadsFake } from '../fakes/threads.fake';
import { waitFor } from '../support/publishing-env';
import type { TestApp } from '../support/test-app';
import { useOAuthApp } from './oauth-harness';

const DAY = 86_400_000;

describe('Threads (OAuth, containers, against the fake)', () => {
  const threads = new ThreadsFake({ rateLimitMinutes: 1 });
  // Threads downloads media from our signed URLs: the app's public address is its real one.
  const h = useOAuthApp('threads', threads, {
    reachable: true,
    env: { META_CONTAINER_POLL_MS: '20', META_CONTAINER_WAIT_SECONDS: '2' },
  });
  let t: TestApp;
  let key: string;
  let publicBaseUrl: string;
  let channelId: string;
  beforeAll(async () => {
    ({ t, key, publicBaseUrl } = h);
  });

  const { start } = h;
  const postsWithText = (text: string) => threads.posts.filter((p) => p.text === text);
  const channel = async () => (await t.request('GET', `/api/channels/${channelId}`, { key })).body;
  /** Connects the fake's account again (after a test disconnected it). */
  const reconnect = async () => {
    channelId = await h.connect();
  };

  it('lists Threads as an enabled OAuth network with its limits', async () => {
    const res = await t.request('GET', '/api/providers', { key });
    expect(res.body.data.find((p: { id: string }) => p.id === 'threads')).toEqual({
      id: 'threads',
      name: 'Threads',
      connect: 'oauth',
      apiVersion: 'v1.0',
      apiSunset: null,
      optionsSchema: null,
      enabled: true,
      limits: {
        maxCharacters: 500,
        maxMedia: 20,
        maxImageBytes: 8 * 1024 * 1024,
        supportedMimeTypes: ['image/jpeg', 'image/png'],
        threads: true,
        // Threads' video specifications: up to 1 GB and 5 minutes, 23 to 60 fps, in carousels too.
        video: expect.objectContaining({
          maxBytes: 1024 * 1024 * 1024,
          minDurationSeconds: 0,
          maxDurationSeconds: 300,
          mimeTypes: ['video/mp4', 'video/quicktime', 'video/webm'],
          maxPerPost: 20,
          minFrameRate: 23,
          maxFrameRate: 60,
          videoCodecs: ['h264', 'hevc'],
          audioCodecs: ['aac'],
        }),
        firstComment: true,
      },
    });
  });

  describe('connecting', () => {
    it('answers the authorization window URL with comma-separated scopes, a state and PKCE', async () => {
      const res = await start();
      expect(res.status).toBe(201);
      const url = new URL(res.body.authorizationUrl);
      expect(url.origin + url.pathname).toBe(`${threads.baseUrl}/oauth/authorize`);
      expect(Object.fromEntries(url.searchParams)).toEqual({
        response_type: 'code',
        client_id: threads.clientId,
        redirect_uri: `${publicBaseUrl}/api/oauth/threads/callback`,
        scope:
          'threads_basic,threads_content_publish,threads_manage_replies,threads_read_replies,threads_manage_insights',
        state: res.body.state,
        code_challenge: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
        code_challenge_method: 'S256',
      });
    });

    it('exchanges the code, swaps the short-lived token for a long-lived one and creates the channel', async () => {
      const exchanges = threads.exchangeCount;
      await reconnect();
      expect(threads.exchangeCount - exchanges).toBe(1);
      const created = await channel();
      expect(created).toEqual(
        expect.objectContaining({ provider: 'threads', status: 'active', handle: '@contract_threads' }),
      );
      const stored = await h.storedCredentials(channelId);
      // The long-lived token (60 days), not the one-hour one; no refresh token.
      expect(Date.parse(stored.expiresAt as string) - Date.now()).toBeGreaterThan(59 * DAY);
      expect(stored.refreshToken).toBeNull();
      expect(stored.userId).toBe(threads.accounts[0].id);
      const [row] = await t.dataSource.query(`SELECT credentials FROM channels WHERE id = $1`, [channelId]);
      expect(row.credentials).toMatch(/^v1\./);
    });

    it('sends a refused consent back with error=access_denied and creates nothing', async () => {
      threads.denyNext();
      const channels = await h.channelCount();
      expect((await h.authorize()).get('error')).toBe('access_denied');
      expect(await h.channelCount()).toBe(channels);
    });
  });

  describe('publishing', () => {
    it('publishes a text post through a TEXT container and threads_publish', async () => {
      const before = threads.publishLog.length;
      const post = await h.settled(await h.publishNow(channelId, 'Hello Threads 👋'));
      expect(post.status).toBe('published');
      const [onThreads] = postsWithText('Hello Threads 👋');
      expect(post.targets[0]).toEqual(
        expect.objectContaining({ platformPostId: onThreads.id, url: threads.permalinkOf(onThreads.id) }),
      );
      expect(threads.publishLog.length - before).toBe(1);
      expect(threads.containers.get(onThreads.containerId!)!.mediaType).toBe('TEXT');
      // The token went as a Bearer header, never in a URL.
      const create = threads.requests.filter((r) => r.route === THREADS_ROUTES.createContainer).at(-1)!;
      expect(create.headers.authorization).toMatch(/^Bearer EAAL/);
      expect(create.query).not.toContain('access_token');
    });

    it('publishes an image that Threads downloads from our signed public URL', async () => {
      const mediaId = await h.uploadPng(40, 30);
      const post = await h.settled(await h.publishNow(channelId, 'Threads image', [mediaId]));
      expect(post.status).toBe('published');
      const [onThreads] = postsWithText('Threads image');
      const container = threads.containers.get(onThreads.containerId!)!;
      expect(container.mediaType).toBe('IMAGE');
      const fetched = onThreads.images;
      expect(fetched).toEqual([
        expect.objectContaining({ status: 200, contentType: 'image/png', sniffed: 'image/png' }),
      ]);
      const url = new URL(fetched[0].url);
      expect(url.origin).toBe(publicBaseUrl);
      expect(url.pathname).toBe(`/api/media/${mediaId}/content`);
      expect([...url.searchParams.keys()]).toEqual(expect.arrayContaining(['expires', 'signature']));
    });

    it('publishes a carousel: an item container per image, then a CAROUSEL container', async () => {
      const ids = [await h.uploadPng(40, 30), await h.uploadPng(30, 40), await h.uploadPng(50, 50)];
      const post = await h.settled(await h.publishNow(channelId, 'Threads carousel', ids));
      expect(post.status).toBe('published');
      const [onThreads] = postsWithText('Threads carousel');
      const carousel = threads.containers.get(onThreads.containerId!)!;
      expect(carousel.mediaType).toBe('CAROUSEL');
      expect(carousel.children.map((c) => threads.containers.get(c)!.isCarouselItem)).toEqual([true, true, true]);
      expect(onThreads.images.map((i) => i.url.split('?')[0])).toEqual(
        ids.map((id) => `${publicBaseUrl}/api/media/${id}/content`),
      );
    });

    it('fails the target when Threads cannot process the image (container ERROR), without retrying', async () => {
      threads.failNextDownload();
      const post = await h.settled(await h.publishNow(channelId, 'image Threads cannot fetch', [await h.uploadPng()]));
      expect(post.status).toBe('failed');
      expect(post.targets[0].attempts).toBe(1);
      expect(post.targets[0].error).toEqual({
        code: 'MEDIA_REJECTED',
        message: expect.stringContaining('FAILED_DOWNLOADING_IMAGE'),
      });
      expect(postsWithText('image Threads cannot fetch')).toHaveLength(0);
    });

    it('publishes a thread as a chain of replies (reply_to_id)', async () => {
      const id = await h.publishNow(channelId, 'thread one', [], {
        thread: [{ content: 'thread two' }, { content: 'thread three' }],
      });
      const post = await h.settled(id);
      expect(post.status).toBe('published');
      const [one, two, three] = ['thread one', 'thread two', 'thread three'].map((x) => postsWithText(x)[0]);
      expect([one.replyToId, two.replyToId, three.replyToId]).toEqual([null, one.id, two.id]);
    });

    it('applies the 500-character limit, counting emojis as their UTF-8 bytes', async () => {
      const validate = (content: string) =>
        t.request('POST', '/api/posts/validate', { key, body: { content, channelIds: [channelId] } });
      expect((await validate('x'.repeat(500))).body.valid).toBe(true);
      expect((await validate('x'.repeat(496) + '😀')).body.valid).toBe(true);
      const tooLong = await validate('x'.repeat(497) + '😀');
      expect(tooLong.body.valid).toBe(false);
      expect(JSON.stringify(tooLong.body)).toContain('Threads allows 500');
    });

    it('reads views, likes, replies, reposts and quotes from the media insights', async () => {
      const id = await h.publishNow(channelId, 'measured on Threads');
      expect((await h.settled(id)).status).toBe('published');
      const [onThreads] = postsWithText('measured on Threads');
      threads.setCounts(onThreads.id, { likes: 4, reposts: 3, replies: 2, quotes: 1, impressions: 99 });
      const analytics = await h.analytics(id);
      expect(analytics.targets[0].metrics).toEqual({ likes: 4, reposts: 3, replies: 2, quotes: 1, impressions: 99 });
    });
  });

  describe('unknown outcomes: the container is reused, never published twice', () => {
    it('finds the post when the publish answer is lost, and publishes nothing more', async () => {
      threads.failAfterPublishNext(503);
      const before = threads.publishLog.length;
      const post = await h.settled(await h.publishNow(channelId, 'answer lost on Threads'));
      expect(post.status).toBe('published');
      expect(post.targets[0].attempts).toBe(2);
      const onThreads = postsWithText('answer lost on Threads');
      expect(onThreads).toHaveLength(1);
      expect(post.targets[0].platformPostId).toBe(onThreads[0].id);
      // One container, published once: the retry read its status instead of creating another.
      expect(threads.publishLog.length - before).toBe(1);
      expect(threads.publishesOf(onThreads[0].containerId!)).toHaveLength(1);
      expect([...threads.containers.values()].filter((c) => c.text === 'answer lost on Threads')).toHaveLength(1);
      const checkpoints = await t.dataSource.query(
        `SELECT c.state FROM post_target_checkpoints c JOIN post_targets pt ON pt.id = c.target_id WHERE pt.post_id = $1`,
        [post.id],
      );
      expect(checkpoints).toEqual([{ state: expect.objectContaining({ container: onThreads[0].containerId }) }]);
    });

    it('publishes the saved container after a failure between its creation and the publish', async () => {
      threads.failNext(1, 503, THREADS_ROUTES.publish);
      const post = await h.settled(await h.publishNow(channelId, 'publish failed once'));
      expect(post.status).toBe('published');
      const containers = [...threads.containers.values()].filter((c) => c.text === 'publish failed once');
      expect(containers).toHaveLength(1);
      expect(threads.publishesOf(containers[0].id)).toHaveLength(1);
      expect(postsWithText('publish failed once')).toHaveLength(1);
    });

    it('goes on with the same container when processing outlasts the wait, and publishes it once', async () => {
      threads.slowNextContainer(20); // still IN_PROGRESS after the 2 s wait of one attempt
      const post = await h.settled(await h.publishNow(channelId, 'slow container'));
      expect(post.status).toBe('published');
      expect(post.targets[0].attempts).toBeGreaterThanOrEqual(2);
      const containers = [...threads.containers.values()].filter((c) => c.text === 'slow container');
      expect(containers).toHaveLength(1);
      expect(threads.publishesOf(containers[0].id)).toHaveLength(1);
    });
  });

  describe('rate limits', () => {
    it('waits out a throttle (#4) for the time X-Business-Use-Case-Usage announces', async () => {
      threads.throttleNext(THREADS_ROUTES.createContainer, 4);
      const id = await h.publishNow(channelId, 'throttled on Threads');
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
      expect(new Date(row.due_at).getTime() - Date.now()).toBeGreaterThan(50_000); // one minute announced
      expect(postsWithText('throttled on Threads')).toHaveLength(0);
      await t.request('DELETE', `/api/posts/${id}`, { key });
    });

    it('holds a post while the 24-hour publishing quota is used up', async () => {
      const quota = threads.quotaTotal;
      (threads as { quotaTotal: number }).quotaTotal = threads.posts.filter((p) => !p.replyToId).length;
      try {
        const id = await h.publishNow(channelId, 'over the quota');
        const pending = await waitFor(
          () => h.getPost(id),
          (p) => p.targets[0].error !== null,
        );
        expect(pending.targets[0].error).toEqual({
          code: 'PROVIDER_RATE_LIMITED',
          message: expect.stringContaining('publishing limit reached'),
        });
        expect([...threads.containers.values()].filter((c) => c.text === 'over the quota')).toHaveLength(0);
        await t.request('DELETE', `/api/posts/${id}`, { key });
      } finally {
        (threads as { quotaTotal: number }).quotaTotal = quota;
      }
    });
  });

  describe('tokens', () => {
    it('renews the long-lived token once when 30 days are left, for 20 concurrent publishes', async () => {
      threads.ageTokens(31 * DAY);
      await h.setStoredExpiry(channelId, new Date(Date.now() + 29 * DAY));
      const refreshes = threads.refreshCount;
      const ids = await Promise.all(Array.from({ length: 20 }, (_, i) => h.publishNow(channelId, `renewal ${i}`)));
      const posts = await Promise.all(ids.map((id) => h.settled(id)));
      expect(posts.map((p) => p.status)).toEqual(Array(20).fill('published'));
      expect(threads.refreshCount - refreshes).toBe(1);
      const stored = await h.storedCredentials(channelId);
      expect(Date.parse(stored.expiresAt as string) - Date.now()).toBeGreaterThan(59 * DAY);
    });

    it('renews the token of an idle channel in the periodic job oauth.refresh', async () => {
      const jobs = t.app.get(PeriodicJobs);
      expect(jobs.registered()).toContainEqual({ name: OAUTH_REFRESH_JOB, everyMs: 21_600_000 });
      // Nothing due: nothing renewed.
      const refreshes = threads.refreshCount;
      expect(await jobs.runNow(OAUTH_REFRESH_JOB)).toEqual({ due: 0, renewed: 0, revoked: 0, failed: 0 });
      threads.ageTokens(31 * DAY);
      await h.setStoredExpiry(channelId, new Date(Date.now() + 25 * DAY));
      expect(await jobs.runNow(OAUTH_REFRESH_JOB)).toEqual({ due: 1, renewed: 1, revoked: 0, failed: 0 });
      expect(threads.refreshCount - refreshes).toBe(1);
      const stored = await h.storedCredentials(channelId);
      expect(Date.parse(stored.expiresAt as string) - Date.now()).toBeGreaterThan(59 * DAY);
    });

    it('keeps using a token too young to renew when the renewal is refused early', async () => {
      await h.setStoredExpiry(channelId, new Date(Date.now() + 29 * DAY)); // the fake's token is fresh
      const refreshes = threads.refreshCount;
      const post = await h.settled(await h.publishNow(channelId, 'young token'));
      expect(post.status).toBe('published');
      expect(threads.refreshCount).toBe(refreshes);
      expect((await channel()).status).toBe('active');
    });

    it('disconnects the channel when the token expired and can no longer be renewed', async () => {
      threads.expireTokens();
      await h.setStoredExpiry(channelId, new Date(Date.now() - 1000));
      const post = await h.settled(await h.publishNow(channelId, 'after expiry'));
      expect(post.status).toBe('failed');
      expect(post.targets[0].error.code).toBe('CREDENTIALS_REVOKED');
      expect(await channel()).toEqual(expect.objectContaining({ status: 'disconnected' }));
      const events = await h.events('channel.disconnected');
      expect(events.some((e) => e.data.id === channelId && e.data.reason === 'credentials_revoked')).toBe(true);
      expect(postsWithText('after expiry')).toHaveLength(0);
    });

    it('disconnects the channel when Threads refuses a revoked token (#190)', async () => {
      await reconnect();
      threads.revokeAll();
      const post = await h.settled(await h.publishNow(channelId, 'after revocation'));
      expect(post.status).toBe('failed');
      expect(post.targets[0].error.code).toBe('CREDENTIALS_REVOKED');
      expect((await channel()).status).toBe('disconnected');
      expect(postsWithText('after revocation')).toHaveLength(0);
    });
  });
});
