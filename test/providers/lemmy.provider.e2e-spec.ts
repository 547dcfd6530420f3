import { OutboundHttp } from '../../src/common/http/outbound-http';
import { LemmyProvider } from '../../src/providers/lemmy/lemmy.provider';
import { makePng } from '../factories/png.factory';
import { LemmyFake } from '../fakes/lemmy.fake';
import { tempMediaDir } from '../media/media-support';
import { FAST_PUBLISHING_ENV, waitFor } from '../support/publishing-env';
import { TestApp } from '../support/test-app';
import { uploadMedia } from './chat-network-support';

describe('Lemmy through the app, against Lemmy 0.19 (/api/v3) and 1.x (/api/v4) fakes', () => {
  let t: TestApp;
  let key: string;
  const v3 = new LemmyFake({ restricted: ['announcements'], communities: { technology: 12, announcements: 13 } });
  const v4 = new LemmyFake({ api: 'v4' });
  const media = tempMediaDir();
  const connect = (credentials: Record<string, unknown>) =>
    t.request('POST', '/api/channels', { key, body: { provider: 'lemmy', credentials } });
  const publish = async (
    channel: string,
    content: string,
    options: Record<string, unknown>,
    extra: Record<string, unknown> = {},
  ) => {
    const created = await t.request('POST', '/api/posts', {
      key,
      body: { content, channelIds: [channel], targets: [{ channelId: channel, options }], publishNow: true, ...extra },
    });
    expect(created.status).toBe(201);
    return waitFor(
      async () => (await t.request('GET', `/api/posts/${created.body.id}`, { key })).body,
      (p) => (p.status === 'published' && p.targets[0].firstComment?.status !== 'pending') || p.status === 'failed',
    );
  };

  beforeAll(async () => {
    await v3.start();
    await v4.start();
    t = await TestApp.start({ env: { ...FAST_PUBLISHING_ENV, MEDIA_DIR: media.dir } });
    key = (await t.createWorkspace()).key;
  });
  afterAll(async () => {
    await t?.close();
    await v3.stop();
    await v4.stop();
    media.cleanup();
  });

  it('is listed by GET /providers with community and title required', async () => {
    const providers = (await t.request('GET', '/api/providers', { key })).body.data;
    const lemmy = providers.find((p: { id: string }) => p.id === 'lemmy');
    expect(lemmy).toEqual(expect.objectContaining({ name: 'Lemmy', connect: 'credentials', enabled: true }));
    expect(lemmy.optionsSchema.required).toEqual(['community', 'title']);
    expect(lemmy.limits).toEqual(expect.objectContaining({ maxCharacters: 10_000, maxMedia: 1, video: null }));
  });

  it('refuses credentials field by field: a login without password, a malformed jwt, nothing to sign in with, a wrong password', async () => {
    const noPassword = await connect({ instanceUrl: v3.baseUrl, username: 'release_bot' });
    expect(noPassword.body.details).toEqual([{ field: 'credentials.password', message: 'is required' }]);
    const badJwt = await connect({ instanceUrl: v3.baseUrl, jwt: 'not-a-jwt' });
    expect(badJwt.body.details).toEqual([
      { field: 'credentials.jwt', message: expect.stringContaining('three dot-separated parts') },
    ]);
    const nothing = await connect({ instanceUrl: 'lemmy.world' });
    expect(nothing.body.details.map((d: { field: string }) => d.field).sort()).toEqual([
      'credentials.instanceUrl',
      'credentials.jwt',
      'credentials.password',
      'credentials.username',
    ]);
    const wrong = await connect({ instanceUrl: v3.baseUrl, username: 'release_bot', password: 'nope' });
    expect(wrong.status).toBe(400);
    expect(wrong.body.message).toMatch(/incorrect_login/);
  });

  it('on 0.19: publishes to a community with title, url and nsfw, an image into the body, and a first comment', async () => {
    const res = await connect({ instanceUrl: v3.baseUrl, jwt: v3.issueJwt() });
    expect(res.status).toBe(201);
    expect(res.body.handle).toBe(`@release_bot@${new URL(v3.baseUrl).host}`);
    const imageId = await uploadMedia(t, key, makePng(20, 20), 'shot.png', 'image/png', 'A screenshot');
    const post = await publish(
      res.body.id,
      'What changed in 2.0',
      { community: 'technology', title: 'Release 2.0', url: 'https://example.com/notes', nsfw: true },
      { mediaIds: [imageId], firstComment: 'Ask me anything' },
    );
    expect(post.status).toBe('published');
    const created = v3.posts.find((p) => p.name === 'Release 2.0')!;
    expect(created).toEqual(expect.objectContaining({ communityId: 12, url: 'https://example.com/notes', nsfw: true }));
    expect(created.body).toMatch(
      /^What changed in 2\.0\n\n!\[A screenshot\]\(http:\/\/127\.0\.0\.1:\d+\/pictrs\/image\/[0-9a-f]+\.png\)$/,
    );
    expect(v3.comments).toEqual([expect.objectContaining({ postId: created.id, content: 'Ask me anything' })]);
    expect(post.targets[0].url).toBe(`${v3.baseUrl}/post/${created.id}`);

    const restricted = await publish(res.body.id, 'Not a mod', { community: 'announcements', title: 'Nope' });
    expect(restricted.targets[0].error).toEqual({
      code: 'CONTENT_REJECTED',
      message: expect.stringMatching(/only_mods_can_post_in_community/),
    });
    const unknown = await publish(res.body.id, 'Where', { community: 'nowhere', title: 'Lost post' });
    expect(unknown.targets[0].error).toEqual({
      code: 'CONTENT_REJECTED',
      message: expect.stringMatching(/no community nowhere/),
    });
  });

  it('on 1.x: detects /api/v4, logs in, uploads the image as the post url, and logs in again when the session ends', async () => {
    const res = await connect({ instanceUrl: v4.baseUrl, username: 'release_bot', password: v4.password });
    expect(res.status).toBe(201);
    const imageId = await uploadMedia(t, key, makePng(20, 20), 'pic.png', 'image/png', 'Alt on v4');
    v4.sessions.clear();
    const post = await publish(
      res.body.id,
      'On v4',
      { community: 'contract', title: 'Version four' },
      { mediaIds: [imageId] },
    );
    expect(post.status).toBe('published');
    const created = v4.posts.find((p) => p.name === 'Version four')!;
    expect(created.url).toMatch(/\/pictrs\/image\//);
    expect(created.altText).toBe('Alt on v4');
    expect(v4.requests.some((r) => r.path === '/api/v4/image')).toBe(true);
    expect(v4.requests.some((r) => r.path.startsWith('/api/v3/'))).toBe(false);
  });

  it('validates options: community and title required, url an http(s) link', async () => {
    const channel = (await connect({ instanceUrl: v3.baseUrl, jwt: v3.issueJwt() })).body.id;
    const res = await t.request('POST', '/api/posts', {
      key,
      body: {
        content: 'x',
        channelIds: [channel],
        targets: [{ channelId: channel, options: { url: 'ftp://x' } }],
        publishNow: true,
      },
    });
    expect(res.status).toBe(400);
    const said = JSON.stringify(res.body.details);
    expect(said).toMatch(/community/);
    expect(said).toMatch(/title/);
    expect(said).toMatch(/targets\[0\]\.options\.url/);
  });

  it('reads upvotes and comments (score in raw), and types a rate limit as PROVIDER_RATE_LIMITED', async () => {
    const http = new OutboundHttp({ allowPrivate: true });
    try {
      const adapter = new LemmyProvider(http);
      const account = await adapter.connect({ instanceUrl: v3.baseUrl, jwt: v3.issueJwt() });
      const post = v3.posts[0];
      v3.setCounts(String(post.id), { likes: 9, replies: 2 });
      const { metrics } = await adapter.fetchMetrics(account.credentials, { platformPostId: String(post.id), url: '' });
      expect(metrics).toEqual(
        expect.objectContaining({ likes: 9, replies: 3, reposts: null, raw: expect.objectContaining({ score: 9 }) }),
      );
      v3.failNext(1, 429, 'POST /post');
      await expect(
        adapter.publish({
          credentials: account.credentials,
          content: 'limited',
          media: [],
          options: { community: 'technology', title: 'Limited' },
          idempotencyKey: 'k',
          createdAt: new Date(),
          checkpoint: null,
          saveCheckpoint: async () => undefined,
        }),
      ).rejects.toMatchObject({ code: 'PROVIDER_RATE_LIMITED' });
    } finally {
      http.close();
    }
  });

  it("on 1.x: a retry finds the post a lost answer created (sort=new, the list's `items`), and creates none", async () => {
    const http = new OutboundHttp({ allowPrivate: true });
    try {
      const adapter = new LemmyProvider(http);
      const account = await adapter.connect({
        instanceUrl: v4.baseUrl,
        username: 'release_bot',
        password: v4.password,
      });
      const input = {
        credentials: account.credentials,
        content: 'Lost answer on v4',
        media: [],
        options: { community: 'contract', title: 'Lost v4' },
        idempotencyKey: 'k-lost-v4',
        createdAt: new Date(),
        checkpoint: null,
        saveCheckpoint: async () => undefined,
      };
      const first = await adapter.publish(input);
      const again = await adapter.publish({ ...input, attempt: 2 });
      expect(again.platformPostId).toBe(first.platformPostId);
      expect(v4.posts.filter((p) => p.name === 'Lost v4')).toHaveLength(1);
      const list = v4.requests.filter((r) => r.path === '/api/v4/post/list');
      expect(new URLSearchParams(list[list.length - 1].query).get('sort')).toBe('new');
    } finally {
      http.close();
    }
  });

  it("sent neither instance anything lemmy-js-client's request types refuse", () => {
    expect(v3.describedBy?.source).toMatch(/lemmy-js-client 0\.19/);
    expect(v3.descriptionViolations).toEqual([]);
    expect(v4.descriptionViolations).toEqual([]);
  });
});
