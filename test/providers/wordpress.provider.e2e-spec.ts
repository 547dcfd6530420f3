import { OutboundHttp } from '../../src/common/http/outbound-http';
import { WordpressProvider } from '../../src/providers/wordpress/wordpress.provider';
import { makePng } from '../factories/png.factory';
import { WordpressFake } from '../fakes/wordpress.fake';
import { tempMediaDir } from '../media/media-support';
import { FAST_PUBLISHING_ENV, waitFor } from '../support/publishing-env';
import { TestApp } from '../support/test-app';
import { uploadMedia } from './chat-network-support';

const PASSWORD = 'abcd EFGH 1234 ijkl MNOP 5678';

describe('WordPress through the app, against a WordPress REST API fake', () => {
  let t: TestApp;
  let key: string;
  let channelId: string;
  const site = new WordpressFake();
  const authorSite = new WordpressFake({ canCreateTags: false, canModerateComments: false });
  const contributorSite = new WordpressFake({ canPublish: false });
  const media = tempMediaDir();
  const connect = (credentials: Record<string, unknown>) =>
    t.request('POST', '/api/channels', { key, body: { provider: 'wordpress', credentials } });
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
    for (const s of [site, authorSite, contributorSite]) await s.start();
    t = await TestApp.start({ env: { ...FAST_PUBLISHING_ENV, MEDIA_DIR: media.dir } });
    key = (await t.createWorkspace()).key;
  });
  afterAll(async () => {
    await t?.close();
    for (const s of [site, authorSite, contributorSite]) await s.stop();
    media.cleanup();
  });

  it('is listed by GET /providers with its limits, options and API version', async () => {
    const providers = (await t.request('GET', '/api/providers', { key })).body.data;
    const wp = providers.find((p: { id: string }) => p.id === 'wordpress');
    expect(wp).toEqual(
      expect.objectContaining({ name: 'WordPress', connect: 'credentials', apiVersion: 'wp/v2', enabled: true }),
    );
    expect(wp.limits).toEqual(
      expect.objectContaining({ maxCharacters: 65_525, maxMedia: 10, threads: false, firstComment: true }),
    );
    expect(Object.keys(wp.optionsSchema.properties)).toEqual(['title', 'status', 'categories', 'tags', 'excerpt']);
  });

  it('refuses credentials field by field, a wrong password, and a user who may not publish', async () => {
    const missing = await connect({});
    expect(missing.status).toBe(400);
    expect(missing.body.details.map((d: { field: string }) => d.field).sort()).toEqual([
      'credentials.applicationPassword',
      'credentials.siteUrl',
      'credentials.username',
    ]);
    const malformed = await connect({ siteUrl: 'ftp://x', username: 'editor', applicationPassword: 'short' });
    expect(malformed.body.details).toEqual(
      expect.arrayContaining([
        { field: 'credentials.siteUrl', message: 'must be the http(s) address of the WordPress site' },
        { field: 'credentials.applicationPassword', message: expect.stringContaining('24 letters and digits') },
      ]),
    );
    const wrong = await connect({
      siteUrl: site.baseUrl,
      username: 'editor',
      applicationPassword: 'wxyz WXYZ 0000 wxyz WXYZ 0000',
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body.message).toMatch(/WordPress refused the username or application password/);
    const contributor = await connect({
      siteUrl: contributorSite.baseUrl,
      username: 'editor',
      applicationPassword: PASSWORD,
    });
    expect(contributor.status).toBe(400);
    expect(contributor.body.message).toMatch(/may not publish posts/);

    const ok = await connect({ siteUrl: `${site.baseUrl}/`, username: 'editor', applicationPassword: PASSWORD });
    expect(ok.status).toBe(201);
    expect(ok.body).toEqual(expect.objectContaining({ provider: 'wordpress', name: 'Fake Blog (Ed Itor)' }));
    channelId = ok.body.id;
  });

  it('publishes a post with title, categories, tags (found or created), featured image, draft status and a first comment', async () => {
    const imageId = await uploadMedia(t, key, makePng(40, 30), 'cover.png', 'image/png', 'The cover');
    const post = await publish(
      channelId,
      'Release notes body',
      { title: 'Release 2.0', status: 'draft', categories: [4], tags: ['news', 'Releases'], excerpt: 'Short' },
      { mediaIds: [imageId], firstComment: 'Questions welcome' },
    );
    expect(post.status).toBe('published');
    const created = site.posts.find((p) => p.content.startsWith('Release notes body'))!;
    expect(created).toEqual(
      expect.objectContaining({ title: 'Release 2.0', status: 'draft', categories: [4], excerpt: 'Short' }),
    );
    expect(created.tags.map((id) => site.tags.get(id))).toEqual(['News', 'Releases']);
    const featured = site.media.find((m) => m.id === created.featuredMedia)!;
    expect(featured).toEqual(expect.objectContaining({ mimeType: 'image/png', altText: 'The cover' }));
    expect(post.targets[0].platformPostId).toBe(String(created.id));
    expect(site.comments).toEqual([expect.objectContaining({ post: created.id, content: 'Questions welcome' })]);
    expect(post.targets[0].firstComment).toEqual(expect.objectContaining({ status: 'published' }));
  });

  it('validates options against the schema', async () => {
    const res = await t.request('POST', '/api/posts', {
      key,
      body: {
        content: 'x',
        channelIds: [channelId],
        targets: [{ channelId, options: { status: 'pending', categories: ['one'], colour: 'red' } }],
        publishNow: true,
      },
    });
    expect(res.status).toBe(400);
    const fields = res.body.details.map((d: { field: string }) => d.field);
    expect(fields).toEqual(expect.arrayContaining(['targets[0].options.status', 'targets[0].options.categories[0]']));
  });

  it('types failures: a rate limit is retried, a tag the user may not create fails the target', async () => {
    site.failNext(1, 429, 'POST /wp-json/wp/v2/posts');
    const retried = await publish(channelId, 'After a rate limit', { title: 'Retried' });
    expect(retried.status).toBe('published');
    expect(retried.targets[0].attempts).toBeGreaterThanOrEqual(2);
    expect(site.posts.filter((p) => p.content === 'After a rate limit')).toHaveLength(1);

    const author = await connect({ siteUrl: authorSite.baseUrl, username: 'editor', applicationPassword: PASSWORD });
    const refused = await publish(author.body.id, 'Tagged', { tags: ['Brand new tag'] });
    expect(refused.status).toBe('failed');
    expect(refused.targets[0].error).toEqual({
      code: 'CONTENT_REJECTED',
      message: expect.stringMatching(/Brand new tag.*Editor/),
    });
  });

  it('reads the comment count as the one figure WordPress keeps', async () => {
    const http = new OutboundHttp({ allowPrivate: true });
    try {
      const adapter = new WordpressProvider(http);
      const account = await adapter.connect({
        siteUrl: site.baseUrl,
        username: 'editor',
        applicationPassword: PASSWORD,
      });
      const post = site.posts[0];
      site.setCounts(String(post.id), { replies: 4 });
      const { metrics } = await adapter.fetchMetrics(account.credentials, { platformPostId: String(post.id), url: '' });
      expect(metrics).toEqual(expect.objectContaining({ replies: 5, likes: null, reposts: null, impressions: null }));
    } finally {
      http.close();
    }
  });

  it("sent no site anything the REST controllers' argument schemas refuse", async () => {
    expect(site.describedBy?.source).toMatch(/wordpress-develop/);
    for (const fake of [site, authorSite, contributorSite]) expect(fake.descriptionViolations).toEqual([]);
    // The check bites: a post whose status is not one of get_post_stati(internal false) is refused.
    const auth = `Basic ${Buffer.from(`${site.username}:${site.applicationPassword}`).toString('base64')}`;
    const res = await fetch(`${site.baseUrl}/wp-json/wp/v2/posts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: auth },
      body: JSON.stringify({ content: 'x', status: 'published' }),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { code: string }).code).toBe('rest_invalid_param');
    expect(site.descriptionViolations.splice(0)).toHaveLength(1);
  });

  it("finds an Author's first comment again on a retry, though the edit context is an Editor's", async () => {
    const http = new OutboundHttp({ allowPrivate: true });
    try {
      const adapter = new WordpressProvider(http);
      const account = await adapter.connect({
        siteUrl: authorSite.baseUrl,
        username: authorSite.username,
        applicationPassword: authorSite.applicationPassword,
      });
      const post = await adapter.publish({
        credentials: account.credentials,
        content: 'An Author writes',
        media: [],
        idempotencyKey: 'k-author',
        createdAt: new Date(),
        checkpoint: null,
        saveCheckpoint: async () => undefined,
      });
      const input = {
        credentials: account.credentials,
        content: "It's the first comment -- with quotes",
        post: { ...post, replyRef: null },
        idempotencyKey: 'k-author:first-comment',
        attempt: 1,
        createdAt: new Date(),
      };
      const first = await adapter.comment(input);
      const again = await adapter.comment({ ...input, attempt: 2 });
      expect(again.platformPostId).toBe(first.platformPostId);
      expect(authorSite.comments.filter((c) => c.post === Number(post.platformPostId))).toHaveLength(1);
    } finally {
      http.close();
    }
  });
});
