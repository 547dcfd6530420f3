import { OutboundHttp } from '../../src/common/http/outbound-http';
import { readSettings, settingsOf } from '../../src/config/settings';
import {
  ContentRejectedError,
  InvalidCredentialsError,
  ProcessingPendingError,
  TransientProviderError,
} from '../../src/providers/provider.errors';
import { REDDIT_OPTIONS_SCHEMA } from '../../src/providers/reddit/reddit.options';
import { redditPlugin } from '../../src/providers/reddit/reddit.provider';
import type { ConnectedAccount, PublishInput, SocialProvider } from '../../src/providers/social-provider.interface';
import { waitFor } from '../support/publishing-env';
import { REDDIT_ROUTES, RedditFake } from '../fakes/reddit.fake';
import { PUBLIC_BASE_URL, useOAuthApp } from '../oauth/oauth-harness';
import { TINY_PNG, mediaFrom } from './media.fixture';

/**
 * Reddit through the app and its adapter against the fake: the OAuth dance with a permanent grant,
 * text, link, image and gallery submissions with the target's options, the subreddit's rules read
 * before anything is uploaded, refusals and rate limits typed, the first comment as a reply, figures.
 */
describe('Reddit (against the fake)', () => {
  const reddit = new RedditFake({
    subreddits: [
      { name: 'test', flairs: ['0f3c1a2e-flair'] },
      { name: 'textonly', submissionType: 'self' },
      { name: 'flaired', flairRequired: true, flairs: ['a1b2c3d4-news'] },
      { name: 'closed', notAllowed: true },
    ],
  });
  const h = useOAuthApp('reddit', reddit);
  let channelId: string;
  const options = (extra: Record<string, unknown> = {}) => ({ subreddit: 'test', title: 'A title', ...extra });
  const publish = async (content: string, opts: Record<string, unknown>, mediaIds: string[] = [], extra = {}) =>
    h.settled(await h.publishNow(channelId, content, mediaIds, { targets: [{ channelId, options: opts }], ...extra }));
  const submitted = (text: string) => reddit.things.filter((t) => t.text === text);

  it('lists Reddit as an OAuth network with its limits, options and API version', async () => {
    const res = await h.t.request('GET', '/api/providers', { key: h.key });
    expect(res.body.data.find((p: { id: string }) => p.id === 'reddit')).toEqual({
      id: 'reddit',
      name: 'Reddit',
      connect: 'oauth',
      apiVersion: 'v1',
      apiSunset: null,
      enabled: true,
      limits: expect.objectContaining({
        maxCharacters: 40_000,
        maxMedia: 20,
        threads: true,
        firstComment: true,
        video: expect.objectContaining({ maxBytes: 1024 ** 3, maxDurationSeconds: 900, maxPerPost: 1 }),
      }),
      optionsSchema: JSON.parse(JSON.stringify(REDDIT_OPTIONS_SCHEMA)),
    });
  });

  it('asks for a permanent grant and stores its refresh token with the username', async () => {
    const start = await h.start();
    const url = new URL(start.body.authorizationUrl);
    expect(url.origin + url.pathname).toBe(`${reddit.baseUrl}/api/v1/authorize`);
    expect(url.searchParams.get('duration')).toBe('permanent');
    expect(url.searchParams.get('scope')).toBe('identity submit read history');
    expect(url.searchParams.get('redirect_uri')).toBe(`${PUBLIC_BASE_URL}/api/oauth/reddit/callback`);
    channelId = await h.connect();
    const channel = (await h.t.request('GET', `/api/channels/${channelId}`, { key: h.key })).body;
    expect(channel).toEqual(expect.objectContaining({ provider: 'reddit', handle: 'u/contract_redditor' }));
    expect(await h.storedCredentials(channelId)).toEqual(
      expect.objectContaining({
        username: 'contract_redditor',
        refreshToken: expect.stringMatching(/^reddit-refresh-/),
      }),
    );
  });

  it('refuses a post without a subreddit or with a title over 300 characters, naming the option', async () => {
    const missing = await h.t.request('POST', '/api/posts', {
      key: h.key,
      body: { content: 'no subreddit', channelIds: [channelId], publishNow: true },
    });
    expect(missing.status).toBe(400);
    // Without a target of its own, the channel's required options are named in the `targets` problem.
    expect(missing.body.details).toEqual(
      expect.arrayContaining([
        { field: 'targets', message: expect.stringContaining('options.subreddit is required') },
        { field: 'targets', message: expect.stringContaining('options.title is required') },
      ]),
    );
    const long = await h.t.request('POST', '/api/posts', {
      key: h.key,
      body: {
        content: 'long title',
        channelIds: [channelId],
        targets: [{ channelId, options: options({ title: 't'.repeat(301) }) }],
        publishNow: true,
      },
    });
    expect(long.status).toBe(400);
    expect(long.body.details).toContainEqual(expect.objectContaining({ field: 'targets[0].options.title' }));
  });

  it('submits a text post with its flair, NSFW, spoiler and replies settings', async () => {
    const post = await publish(
      'Body of a **text** post',
      options({ flairId: '0f3c1a2e-flair', nsfw: true, spoiler: true, sendReplies: false }),
    );
    expect(post.status).toBe('published');
    const [thing] = submitted('Body of a **text** post');
    expect(thing).toEqual(
      expect.objectContaining({
        kind: 'self',
        subreddit: 'test',
        title: 'A title',
        flairId: '0f3c1a2e-flair',
        nsfw: true,
        spoiler: true,
        sendReplies: false,
      }),
    );
    expect(post.targets[0].platformPostId).toBe(thing.name);
    expect(post.targets[0].url).toMatch(/^https:\/\/www\.reddit\.com\/r\/test\/comments\//);
  });

  it('submits a link post, an image post and a gallery through the media lease', async () => {
    const link = await publish('about this link', options({ url: 'https://example.com/article' }));
    expect(link.status).toBe('published');
    expect(submitted('about this link')).toEqual([
      expect.objectContaining({ kind: 'link', url: 'https://example.com/article' }),
    ]);
    const image = await publish('one image', options(), [await h.uploadPng()]);
    expect(image.status).toBe('published');
    expect(submitted('one image')).toEqual([expect.objectContaining({ kind: 'image', media: [expect.any(String)] })]);
    const gallery = await publish('two images', options(), [await h.uploadPng(), await h.uploadPng(20, 20)]);
    expect(gallery.status).toBe('published');
    const [thing] = submitted('two images');
    expect(thing.kind).toBe('gallery');
    expect(thing.media).toHaveLength(2);
    expect(gallery.targets[0].platformPostId).toBe(thing.name);
    expect(reddit.requests.filter((r) => r.route === REDDIT_ROUTES.upload)).toHaveLength(3);
  });

  it("checks the subreddit's rules before uploading: text only, flair required", async () => {
    const uploads = () => reddit.requests.filter((r) => r.route === REDDIT_ROUTES.upload).length;
    const before = uploads();
    const image = await publish('image to a text-only subreddit', options({ subreddit: 'textonly' }), [
      await h.uploadPng(),
    ]);
    expect(image.status).toBe('failed');
    expect(image.targets[0].error).toEqual({
      code: 'CONTENT_REJECTED',
      message: expect.stringContaining('r/textonly'),
    });
    expect(uploads()).toBe(before);
    const noFlair = await publish('no flair', options({ subreddit: 'flaired' }));
    expect(noFlair.targets[0].error).toEqual({
      code: 'CONTENT_REJECTED',
      message: expect.stringContaining('options.flairId'),
    });
    const flaired = await publish('with flair', options({ subreddit: 'flaired', flairId: 'a1b2c3d4-news' }));
    expect(flaired.status).toBe('published');
    expect(submitted('no flair')).toHaveLength(0);
  });

  it("fails the target with Reddit's code when it refuses the submission (SUBREDDIT_NOTALLOWED)", async () => {
    const post = await publish('to a closed subreddit', options({ subreddit: 'closed' }));
    expect(post.status).toBe('failed');
    expect(post.targets[0].attempts).toBe(1);
    expect(post.targets[0].error).toEqual({
      code: 'CONTENT_REJECTED',
      message: expect.stringContaining('SUBREDDIT_NOTALLOWED'),
    });
  });

  it('publishes the first comment as a reply to the submission', async () => {
    const id = await h.publishNow(channelId, 'post with a comment', [], {
      targets: [{ channelId, options: options() }],
      firstComment: 'Sources in this comment',
    });
    const post = await waitFor(
      () => h.getPost(id),
      (p) => p.status === 'published' && p.targets[0].firstComment?.status !== 'pending',
    );
    const [submission] = submitted('post with a comment');
    const [comment] = submitted('Sources in this comment');
    expect(comment).toEqual(expect.objectContaining({ kind: 'comment', parentId: submission.name }));
    expect(post.targets[0].firstComment).toEqual(
      expect.objectContaining({ status: 'published', platformId: comment.name }),
    );
  });

  describe('the adapter alone', () => {
    const http = new OutboundHttp({ allowPrivate: true, defaultTimeoutMs: 5000 });
    let adapter: SocialProvider;
    let account: ConnectedAccount;
    const input = (key: string, overrides: Partial<PublishInput> = {}): PublishInput => ({
      credentials: account.credentials,
      content: `adapter ${key}`,
      media: [],
      options: options(),
      idempotencyKey: key,
      createdAt: new Date(),
      checkpoint: null,
      saveCheckpoint: async () => undefined,
      ...overrides,
    });

    beforeAll(async () => {
      const spec = redditPlugin.settings!;
      adapter = redditPlugin.create({
        http,
        settings: settingsOf(spec, readSettings(Object.values(spec), reddit.appEnv())),
        resolve: () => {
          throw new Error('unused');
        },
      });
      account = await adapter.connect({ accessToken: reddit.issueToken(), apiBaseUrl: reddit.baseUrl });
    });
    afterAll(() => http.close());
    afterEach(() => {
      reddit.clearFailures();
      reddit.rateRemaining = 99;
    });

    it('refuses a token Reddit does not know', async () => {
      await expect(adapter.connect({ accessToken: 'nope', apiBaseUrl: reddit.baseUrl })).rejects.toBeInstanceOf(
        InvalidCredentialsError,
      );
    });

    it('types a 429 as a rate limit to retry after X-Ratelimit-Reset, and a RATELIMIT error after its minutes', async () => {
      reddit.failNext(1, 429, REDDIT_ROUTES.submit);
      const limited = await adapter.publish(input('limited')).catch((e: unknown) => e);
      expect(limited).toBeInstanceOf(TransientProviderError);
      expect(limited).toMatchObject({ code: 'PROVIDER_RATE_LIMITED', retryAfterSeconds: 1 });
      reddit.refuseNext('RATELIMIT', "you're doing that too much. try again in 9 minutes.", 'ratelimit');
      const body = await adapter.publish(input('ratelimit-body')).catch((e: unknown) => e);
      expect(body).toMatchObject({ code: 'PROVIDER_RATE_LIMITED', retryAfterSeconds: 540 });
    });

    it('sends nothing more once X-Ratelimit-Remaining says the window is spent', async () => {
      reddit.rateRemaining = 0;
      const before = reddit.requests.length;
      const err = await adapter.publish(input('spent')).catch((e: unknown) => e);
      expect(err).toMatchObject({ code: 'PROVIDER_RATE_LIMITED', retryAfterSeconds: 42 });
      // The subreddit's about page was read; its post requirements and the submission were not sent.
      expect(reddit.requests.slice(before).map((r) => r.route)).toEqual([REDDIT_ROUTES.about]);
    });

    it('waits for an image post Reddit is processing, then finds it without submitting again', async () => {
      reddit.mediaProcessingReads = 1;
      const checkpoints = new Map<string, Record<string, unknown>>();
      const attempt = () =>
        adapter.publish(
          input('processing', {
            media: [mediaFrom(TINY_PNG)],
            checkpoint: checkpoints.get('k') ?? null,
            saveCheckpoint: async (state) => void checkpoints.set('k', state),
          }),
        );
      try {
        await expect(attempt()).rejects.toBeInstanceOf(ProcessingPendingError);
        expect(checkpoints.get('k')).toEqual({ state: 'accepted' });
        const found = await attempt();
        expect(submitted('adapter processing')).toEqual([expect.objectContaining({ name: found.platformPostId })]);
      } finally {
        reddit.mediaProcessingReads = 0;
      }
    });

    it('refuses a comment over 10,000 characters without sending it', async () => {
      const parent = await adapter.publish(input('parent'));
      const root = { ...parent, replyRef: null };
      await expect(
        adapter.publish(input('long-reply', { content: 'x'.repeat(10_001), replyTo: { root, parent: root } })),
      ).rejects.toBeInstanceOf(ContentRejectedError);
    });

    it('reads score, upvote ratio, comments and crossposts', async () => {
      const ref = await adapter.publish(input('figures', { media: [mediaFrom(TINY_PNG)] }));
      reddit.setCounts(ref.platformPostId, { likes: 12, replies: 4, reposts: 1, upvoteRatio: 0.92 });
      const { metrics } = await adapter.fetchMetrics(account.credentials, ref);
      expect(metrics).toEqual({
        likes: 12,
        reposts: 1,
        replies: 4,
        quotes: null,
        impressions: null,
        raw: { score: 12, upvote_ratio: 0.92, num_comments: 4, num_crossposts: 1 },
      });
    });
  });

  it('sent Reddit nothing its description refuses', () => {
    expect(reddit.descriptionViolations).toEqual([]);
  });
});
