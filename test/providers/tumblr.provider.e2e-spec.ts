import { OutboundHttp } from '../../src/common/http/outbound-http';
import { ContentRejectedError, TransientProviderError } from '../../src/providers/provider.errors';
import type { ConnectedAccount, PublishInput, SocialProvider } from '../../src/providers/social-provider.interface';
import { TUMBLR_OPTIONS_SCHEMA } from '../../src/providers/tumblr/tumblr.options';
import { tumblrPlugin } from '../../src/providers/tumblr/tumblr.provider';
import { TUMBLR_ROUTES, TumblrFake } from '../fakes/tumblr.fake';
import { PUBLIC_BASE_URL, useOAuthApp } from '../oauth/oauth-harness';
import { TINY_PNG, mediaFrom } from './media.fixture';

/**
 * Tumblr through the app and its adapter against the fake: the blog chosen at connection, NPF posts
 * (text blocks, image blocks with alt text in a multipart request) with tags and state, options
 * validated, refusals and rate limits typed, no first comment, notes as figures.
 */
describe('Tumblr (against the fake)', () => {
  const tumblr = new TumblrFake({
    blogs: [
      { name: 'side-project', title: 'Side project' },
      { name: 'main-blog', title: 'Main blog', primary: true },
    ],
  });
  const h = useOAuthApp('tumblr', tumblr);
  let channelId: string;
  const publish = async (content: string, options: Record<string, unknown> = {}, mediaIds: string[] = []) =>
    h.settled(await h.publishNow(channelId, content, mediaIds, { targets: [{ channelId, options }] }));
  const postsWith = (text: string) => tumblr.posts.filter((p) => p.paragraphs.join('\n') === text);

  it('lists Tumblr as an OAuth network with its limits and options', async () => {
    const res = await h.t.request('GET', '/api/providers', { key: h.key });
    expect(res.body.data.find((p: { id: string }) => p.id === 'tumblr')).toEqual({
      id: 'tumblr',
      name: 'Tumblr',
      connect: 'oauth',
      apiVersion: 'v2',
      apiSunset: null,
      enabled: true,
      limits: expect.objectContaining({
        maxMedia: 30,
        threads: false,
        firstComment: false,
        video: expect.objectContaining({ mimeTypes: ['video/mp4'], maxPerPost: 1 }),
      }),
      optionsSchema: JSON.parse(JSON.stringify(TUMBLR_OPTIONS_SCHEMA)),
    });
  });

  it('lists the blogs at connection, the primary first, and makes a channel of the one chosen', async () => {
    const start = await h.start();
    const url = new URL(start.body.authorizationUrl);
    expect(url.origin + url.pathname).toBe(`${tumblr.baseUrl}/oauth2/authorize`);
    expect(url.searchParams.get('scope')).toBe('basic write offline_access');
    expect(url.searchParams.get('redirect_uri')).toBe(`${PUBLIC_BASE_URL}/api/oauth/tumblr/callback`);
    const connectionId = (await h.authorize()).get('connectionId')!;
    const listed = await h.getConnection(connectionId);
    expect(listed.body.targets.map((t: { handle: string }) => t.handle)).toEqual(['main-blog', 'side-project']);
    const chosen = await h.choose(connectionId, ['t:side-project']);
    expect(chosen.status).toBe(201);
    channelId = chosen.body.data[0].id;
    expect(await h.storedCredentials(channelId)).toEqual(
      expect.objectContaining({ blog: 'side-project', refreshToken: expect.stringMatching(/^tumblr-refresh-/) }),
    );
  });

  it('posts the text as NPF text blocks with tags, to the queue when asked', async () => {
    const post = await publish('First paragraph\n\nSecond paragraph', { tags: ['npf', 'api test'], state: 'queue' });
    expect(post.status).toBe('published');
    expect(tumblr.posts.at(-1)).toEqual(
      expect.objectContaining({
        blog: 'side-project',
        state: 'queue',
        paragraphs: ['First paragraph', 'Second paragraph'],
        tags: ['npf', 'api test'],
      }),
    );
    expect(post.targets[0].url).toBe(`https://www.tumblr.com/side-project/${tumblr.posts.at(-1)!.id}`);
  });

  it('uploads the images in the same multipart request as the post', async () => {
    const post = await publish('two pictures', {}, [await h.uploadPng(), await h.uploadPng(30, 30)]);
    expect(post.status).toBe('published');
    const [onTumblr] = postsWith('two pictures');
    expect(onTumblr.images).toHaveLength(2);
    expect(onTumblr.images.every((i) => i.type === 'image/png' && i.bytes > 0)).toBe(true);
  });

  it('refuses an unknown state, a tag with a comma and a first comment, naming each', async () => {
    const res = await h.t.request('POST', '/api/posts', {
      key: h.key,
      body: {
        content: 'bad options',
        channelIds: [channelId],
        targets: [{ channelId, options: { state: 'private', tags: ['a,b'] } }],
        firstComment: 'no replies through the API',
        publishNow: true,
      },
    });
    expect(res.status).toBe(400);
    const fields = res.body.details.map((d: { field: string }) => d.field);
    expect(fields).toEqual(expect.arrayContaining(['targets[0].options.state', 'targets[0].options.tags[0]']));
    expect(JSON.stringify(res.body.details)).toMatch(/first ?comment/i);
  });

  it("fails the target on Tumblr's daily post limit (403, subcode 8023) without retrying", async () => {
    tumblr.failNext(1, 403, TUMBLR_ROUTES.createPost);
    const post = await publish('over the daily limit');
    expect(post.status).toBe('failed');
    expect(post.targets[0].attempts).toBe(1);
    expect(post.targets[0].error).toEqual({ code: 'CONTENT_REJECTED', message: expect.stringContaining('8023') });
  });

  describe('the adapter alone', () => {
    const http = new OutboundHttp({ allowPrivate: true, defaultTimeoutMs: 5000 });
    let adapter: SocialProvider;
    let account: ConnectedAccount;
    const input = (key: string, overrides: Partial<PublishInput> = {}): PublishInput => ({
      credentials: account.credentials,
      content: `adapter ${key}`,
      media: [],
      idempotencyKey: key,
      createdAt: new Date(),
      checkpoint: null,
      saveCheckpoint: async () => undefined,
      ...overrides,
    });

    beforeAll(async () => {
      adapter = tumblrPlugin.create({
        http,
        settings: {} as never,
        resolve: () => {
          throw new Error('unused');
        },
      });
      account = await adapter.connect({ accessToken: tumblr.issueToken(), apiBaseUrl: tumblr.baseUrl });
    });
    afterAll(() => http.close());

    it('connects the primary blog when none was chosen', () => {
      expect(account).toEqual(expect.objectContaining({ handle: 'main-blog', externalId: 't:main-blog' }));
    });

    it('types a 429 as a rate limit and an invalid NPF answer as a refusal', async () => {
      tumblr.failNext(1, 429, TUMBLR_ROUTES.createPost);
      const limited = await adapter.publish(input('limited')).catch((e: unknown) => e);
      expect(limited).toBeInstanceOf(TransientProviderError);
      expect(limited).toMatchObject({ code: 'PROVIDER_RATE_LIMITED' });
      tumblr.failNext(1, 400, TUMBLR_ROUTES.createPost);
      await expect(adapter.publish(input('invalid'))).rejects.toBeInstanceOf(ContentRejectedError);
    });

    it('finds the queued post an attempt made instead of posting it twice', async () => {
      const first = await adapter.publish(input('queued', { options: { state: 'queue' } }));
      const again = await adapter.publish(input('queued', { options: { state: 'queue' }, attempt: 2 }));
      expect(again.platformPostId).toBe(first.platformPostId);
      expect(postsWith('adapter queued')).toHaveLength(1);
    });

    it('reads the notes as figures (note_count in raw), and nulls for a post Tumblr does not show', async () => {
      const ref = await adapter.publish(input('figures', { media: [mediaFrom(TINY_PNG, { altText: 'a dot' })] }));
      expect(postsWith('adapter figures')[0].images).toEqual([
        { type: 'image/png', bytes: TINY_PNG.length, altText: 'a dot' },
      ]);
      tumblr.setCounts(ref.platformPostId, { likes: 7, reposts: 2, replies: 1 });
      const { metrics } = await adapter.fetchMetrics(account.credentials, ref);
      expect(metrics).toEqual({
        likes: 7,
        reposts: 2,
        replies: 1,
        quotes: null,
        impressions: null,
        raw: { note_count: 10, total_likes: 7, total_reblogs: 2 },
      });
      const draft = await adapter.publish(input('draft', { options: { state: 'draft' } }));
      expect((await adapter.fetchMetrics(account.credentials, draft)).metrics).toEqual(
        expect.objectContaining({ likes: null, reposts: null, replies: null }),
      );
    });
  });

  it('sent Tumblr nothing its description refuses', () => {
    expect(tumblr.descriptionViolations).toEqual([]);
  });
});
