import { OutboundHttp } from '../../src/common/http/outbound-http';
import { DISCORD_OPTIONS_SCHEMA } from '../../src/providers/discord/discord.options';
import { DiscordProvider } from '../../src/providers/discord/discord.provider';
import { InvalidCredentialsError } from '../../src/providers/provider.errors';
import { makePng } from '../factories/png.factory';
import { DISCORD_WEBHOOK, DiscordFake, FakeDiscordWebhook } from '../fakes/discord.fake';
import { tempMediaDir } from '../media/media-support';
import { FAST_PUBLISHING_ENV, waitFor } from '../support/publishing-env';
import { TestApp } from '../support/test-app';
import { makeMp4, publishNow, uploadMedia } from './chat-network-support';

const FORUM: FakeDiscordWebhook = {
  id: '1300000000000000002',
  token: 'ForumWebhookToken-abcdefghijklmnopqrstuvwxyz0123456789_ABCDEFGHIJKLM',
  name: 'Forum bot',
  guildId: DISCORD_WEBHOOK.guildId,
  channelId: '1210000000000000002',
  forum: true,
  tags: ['1220000000000000001', '1220000000000000002'],
};

describe('Discord through the app, against a webhook fake', () => {
  let t: TestApp;
  let key: string;
  let channelId: string;
  let forumChannelId: string;
  const fake = new DiscordFake({ webhooks: [DISCORD_WEBHOOK, FORUM] });
  const media = tempMediaDir();
  const connect = (webhookUrl: string) =>
    t.request('POST', '/api/channels', { key, body: { provider: 'discord', credentials: { webhookUrl } } });
  const last = () => fake.messages[fake.messages.length - 1];

  beforeAll(async () => {
    await fake.start();
    t = await TestApp.start({
      env: { ...FAST_PUBLISHING_ENV, MEDIA_DIR: media.dir, DISCORD_WEBHOOK_ORIGINS: fake.baseUrl },
    });
    key = (await t.createWorkspace()).key;
  });
  afterAll(async () => {
    await t?.close();
    await fake.stop();
    media.cleanup();
  });

  it('is listed by GET /providers as a network connected with credentials, with its limits', async () => {
    const providers = (await t.request('GET', '/api/providers', { key })).body.data;
    expect(providers.find((p: { id: string }) => p.id === 'discord')).toMatchObject({
      id: 'discord',
      name: 'Discord',
      connect: 'credentials',
      apiVersion: 'v10',
      apiSunset: null,
      enabled: true,
      limits: { maxCharacters: 2000, maxMedia: 10, maxImageBytes: 10 * 1024 * 1024, threads: false },
      optionsSchema: JSON.parse(JSON.stringify(DISCORD_OPTIONS_SCHEMA)),
    });
  });

  it('connects a webhook after reading it, named after the webhook, with the channel as handle', async () => {
    const res = await connect(fake.webhookUrl());
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      provider: 'discord',
      name: 'Release bot',
      handle: `#${DISCORD_WEBHOOK.channelId}`,
      profileUrl: `https://discord.com/channels/${DISCORD_WEBHOOK.guildId}/${DISCORD_WEBHOOK.channelId}`,
      status: 'active',
    });
    channelId = res.body.id;
    expect(fake.requests.map((r) => r.route)).toEqual(['GET /api/webhooks/:id/:token']);
  });

  it("refuses webhooks on other hosts than Discord's (or the configured ones)", async () => {
    const elsewhere = await connect(`https://example.com/api/webhooks/${DISCORD_WEBHOOK.id}/${DISCORD_WEBHOOK.token}`);
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.body.message).toContain('webhookUrl must be a webhook on');
    const notAWebhook = await connect(`${fake.baseUrl}/api/users/@me`);
    expect(notAWebhook.status).toBe(400);
    expect(fake.requests.filter((r) => r.method === 'GET')).toHaveLength(1);
  });

  it('keeps the SSRF guard: an allowed origin on a private address is still refused in production', async () => {
    const http = new OutboundHttp({ allowPrivate: false });
    try {
      const adapter = new DiscordProvider(http, [fake.baseUrl]);
      const err = await adapter.connect({ webhookUrl: fake.webhookUrl() }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(InvalidCredentialsError);
      expect((err as Error).message).toContain('not allowed');
    } finally {
      http.close();
    }
  });

  it('sends text without pinging anyone, and images and a video as attachments with their alt text', async () => {
    const post = await publishNow(t, key, channelId, 'Release 2.0 is out @everyone https://example.com/notes');
    expect(post.status).toBe('published');
    expect(last()).toMatchObject({
      content: 'Release 2.0 is out @everyone https://example.com/notes',
      attachments: [],
    });
    expect(last().allowedMentions).toEqual({ parse: [] });
    expect(post.targets[0].url).toBe(
      `https://discord.com/channels/${DISCORD_WEBHOOK.guildId}/${DISCORD_WEBHOOK.channelId}/${last().id}`,
    );

    const png = await uploadMedia(t, key, makePng(32, 24), 'chart.png', 'image/png', 'A rising chart');
    const mp4 = await uploadMedia(t, key, makeMp4(), 'demo.mp4', 'video/mp4');
    const withFiles = await publishNow(t, key, channelId, 'with files', [png, mp4]);
    expect(withFiles.status).toBe('published');
    expect(last().attachments).toEqual([
      expect.objectContaining({ filename: 'chart.png', contentType: 'image/png', description: 'A rising chart' }),
      expect.objectContaining({ filename: 'demo.mp4', contentType: 'video/mp4', description: null }),
    ]);
    // Every call names API v10 (the webhook URL as Discord shows it has none: the deprecated v6) and
    // is as Discord's OpenAPI document describes it.
    expect(fake.requests.map((r) => r.path.split('/').slice(0, 3).join('/'))).toEqual(
      fake.requests.map(() => '/api/v10'),
    );
    expect(fake.descriptionViolations).toEqual([]);
  });

  it('starts a forum post with thread_name once Discord says the channel is a forum, and remembers it', async () => {
    const forum = (await connect(fake.webhookUrl(FORUM))).body.id;
    forumChannelId = forum;
    fake.clearRequests();
    const first = await publishNow(t, key, forum, 'Weekly update\nEverything shipped.');
    expect(first.status).toBe('published');
    expect(last()).toMatchObject({ threadName: 'Weekly update', channelId: last().id });
    expect(fake.requests.filter((r) => r.method === 'POST')).toHaveLength(2);

    fake.clearRequests();
    expect((await publishNow(t, key, forum, 'Second update')).status).toBe('published');
    expect(last().threadName).toBe('Second update');
    expect(fake.requests.filter((r) => r.method === 'POST')).toHaveLength(1);
  });

  describe("the target's options", () => {
    const publishWith = async (channel: string, content: string, options: unknown) => {
      const created = await t.request('POST', '/api/posts', {
        key,
        body: { content, channelIds: [channel], targets: [{ channelId: channel, options }], publishNow: true },
      });
      expect(created.status).toBe(201);
      return waitFor(
        async () => (await t.request('GET', `/api/posts/${created.body.id}`, { key })).body,
        (p) => p.status === 'published' || p.status === 'failed',
        20_000,
      );
    };

    it('sends under another name and avatar, without embeds', async () => {
      const options = { username: 'Release notes', avatarUrl: 'https://cdn.example.com/r.png', suppressEmbeds: true };
      const post = await publishWith(channelId, 'See https://example.com/notes', options);
      expect(post.status).toBe('published');
      expect(post.targets[0].options).toEqual(options);
      expect(last()).toMatchObject({
        content: 'See https://example.com/notes',
        username: 'Release notes',
        avatarUrl: 'https://cdn.example.com/r.png',
        flags: 4,
        threadName: null,
      });
      expect((await publishNow(t, key, channelId, 'plain')).status).toBe('published');
      expect(last()).toMatchObject({ username: null, avatarUrl: null, flags: 0 });
    });

    it('starts a forum post with the title and tags given, in one request', async () => {
      fake.clearRequests();
      const options = { threadName: 'Release 2.1', appliedTags: ['1220000000000000002'] };
      const post = await publishWith(forumChannelId, 'Everything in 2.1\nDetails below.', options);
      expect(post.status).toBe('published');
      expect(last()).toMatchObject({ threadName: 'Release 2.1', appliedTags: ['1220000000000000002'] });
      expect(fake.requests.filter((r) => r.method === 'POST')).toHaveLength(1);
    });

    it('fails the target naming options.threadName on a channel that is no forum', async () => {
      const messages = fake.messages.length;
      const post = await publishWith(channelId, 'not a forum', { threadName: 'A title' });
      expect(post.status).toBe('failed');
      expect(post.targets[0].error).toEqual({
        code: 'CONTENT_REJECTED',
        message: expect.stringContaining('options.threadName'),
      });
      expect(fake.messages.length).toBe(messages);
    });

    it('refuses options that break the schema at targets[0].options.<field>, before Discord is called', async () => {
      fake.clearRequests();
      const res = await t.request('POST', '/api/posts', {
        key,
        body: {
          content: 'bad options',
          channelIds: [channelId],
          targets: [{ channelId, options: { avatarUrl: 'http://cdn.example.com/r.png', username: 'Discord bot' } }],
          publishNow: true,
        },
      });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('VALIDATION_ERROR');
      expect(res.body.details).toEqual([
        { field: 'targets[0].options.avatarUrl', message: expect.stringContaining('must match ^https://') },
        { field: 'targets[0].options.username', message: expect.stringContaining('"discord" or "clyde"') },
      ]);
      expect(fake.requests).toHaveLength(0);
    });
  });

  it('fails the target with MEDIA_REJECTED when Discord refuses the upload as too large', async () => {
    const png = await uploadMedia(t, key, makePng(64, 64), 'big.png', 'image/png');
    fake.maxUploadBytes = 50;
    const post = await publishNow(t, key, channelId, 'too big', [png]).finally(() => {
      fake.maxUploadBytes = 10 * 1024 * 1024;
    });
    expect(post.status).toBe('failed');
    expect(post.targets[0].error).toEqual({
      code: 'MEDIA_REJECTED',
      message: expect.stringContaining('Request entity too large (code 40005)'),
    });
  });

  it("waits Discord's retry_after before trying again after a 429", async () => {
    fake.retryAfterSeconds = 1.5;
    fake.failNext(1, 429, 'POST /api/webhooks/:id/:token');
    fake.clearRequests();
    const post = await publishNow(t, key, channelId, 'after the rate limit');
    expect(post.status).toBe('published');
    const posts = fake.requests.filter((r) => r.method === 'POST');
    expect(posts).toHaveLength(2);
    // FAST_PUBLISHING_ENV retries after 200 ms; Discord asked for 1.5 s (rounded up to 2).
    expect(posts[1].at - posts[0].at).toBeGreaterThanOrEqual(1900);
  });

  it('reads the reactions of a message as likes, and nothing else', async () => {
    const http = new OutboundHttp({ allowPrivate: true });
    try {
      const adapter = new DiscordProvider(http, [fake.baseUrl]);
      const account = await adapter.connect({ webhookUrl: fake.webhookUrl() });
      const ref = { platformPostId: last().id, url: '' };
      fake.setCounts(ref.platformPostId, { likes: 7 });
      const { metrics } = await adapter.fetchMetrics(account.credentials, ref);
      expect(metrics).toMatchObject({ likes: 7, reposts: null, replies: null, impressions: null });
    } finally {
      http.close();
    }
  });
});
