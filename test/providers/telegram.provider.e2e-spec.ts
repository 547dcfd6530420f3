import { OutboundHttp } from '../../src/common/http/outbound-http';
import { TELEGRAM_OPTIONS_SCHEMA } from '../../src/providers/telegram/telegram.options';
import { TelegramProvider } from '../../src/providers/telegram/telegram.provider';
import { makePng } from '../factories/png.factory';
import { TELEGRAM_BOT, TELEGRAM_CHANNEL_ID, TelegramFake } from '../fakes/telegram.fake';
import { tempMediaDir } from '../media/media-support';
import { FAST_PUBLISHING_ENV, waitFor } from '../support/publishing-env';
import { TestApp } from '../support/test-app';
import { makeMp4, publishNow, uploadMedia } from './chat-network-support';

const GROUP_ID = -1009876543210;
const MUTED_CHANNEL_ID = -1005555555555;

describe('Telegram through the app, against a Bot API fake', () => {
  let t: TestApp;
  let key: string;
  let channelId: string;
  let groupChannelId: string;
  const fake = new TelegramFake({
    chats: [
      {
        id: TELEGRAM_CHANNEL_ID,
        type: 'channel',
        title: 'Release notes',
        username: 'release_notes',
        members: new Map([[TELEGRAM_BOT.id, { status: 'administrator', can_post_messages: true }]]),
      },
      {
        id: GROUP_ID,
        type: 'supergroup',
        title: 'Team room',
        topics: [7],
        members: new Map([[TELEGRAM_BOT.id, { status: 'member' }]]),
      },
      {
        id: MUTED_CHANNEL_ID,
        type: 'channel',
        title: 'Read only',
        members: new Map([[TELEGRAM_BOT.id, { status: 'administrator', can_post_messages: false }]]),
      },
    ],
  });
  const media = tempMediaDir();
  const connect = (chatId: string) =>
    t.request('POST', '/api/channels', {
      key,
      body: { provider: 'telegram', credentials: { botToken: TELEGRAM_BOT.token, chatId } },
    });
  const lastPost = () => fake.posts[fake.posts.length - 1];

  beforeAll(async () => {
    await fake.start();
    t = await TestApp.start({
      env: { ...FAST_PUBLISHING_ENV, MEDIA_DIR: media.dir, TELEGRAM_API_BASE_URL: fake.baseUrl },
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
    expect(providers.find((p: { id: string }) => p.id === 'telegram')).toEqual({
      id: 'telegram',
      name: 'Telegram',
      connect: 'credentials',
      apiVersion: 'Bot API (unversioned)',
      apiSunset: null,
      enabled: true,
      limits: {
        maxCharacters: 4096,
        maxMedia: 10,
        maxImageBytes: 10 * 1024 * 1024,
        supportedMimeTypes: ['image/jpeg', 'image/png', 'image/webp', 'video/mp4'],
        threads: true,
        firstComment: false,
        video: {
          maxBytes: 50 * 1024 * 1024,
          minDurationSeconds: 0,
          maxDurationSeconds: 86400,
          mimeTypes: ['video/mp4'],
          maxPerPost: 10,
        },
      },
      optionsSchema: JSON.parse(JSON.stringify(TELEGRAM_OPTIONS_SCHEMA)),
    });
  });

  it('connects a channel the bot may post to, named after the chat, with the token sealed at rest', async () => {
    const res = await connect('@release_notes');
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      provider: 'telegram',
      name: 'Release notes',
      handle: '@release_notes',
      status: 'active',
      limits: { maxCharacters: 4096, maxMedia: 10, threads: true },
    });
    channelId = res.body.id;
    // getMe, getChat, getChatMember of the bot itself.
    expect(fake.requests.map((r) => r.route)).toEqual(['getMe', 'getChat', 'getChatMember']);
    const rows: Array<Record<string, unknown>> = await t.dataSource.query('SELECT * FROM channels WHERE id = $1', [
      channelId,
    ]);
    expect(JSON.stringify(rows[0])).not.toContain(TELEGRAM_BOT.token.split(':')[1]);

    const group = await connect(String(GROUP_ID));
    expect(group.status).toBe(201);
    expect(group.body.name).toBe('Team room');
    groupChannelId = group.body.id;
  });

  it('refuses a chat the bot may not post to, and a chat it is not in', async () => {
    const muted = await connect(String(MUTED_CHANNEL_ID));
    expect(muted.status).toBe(400);
    expect(muted.body.message).toContain('without the right to post messages');
    const unknown = await connect('-1001111111111');
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toContain('add the bot to the chat first');
    const badToken = await t.request('POST', '/api/channels', {
      key,
      body: { provider: 'telegram', credentials: { botToken: 'not-a-token', chatId: '@release_notes' } },
    });
    expect(badToken.status).toBe(400);
    expect(badToken.body.details).toEqual([{ field: 'credentials.botToken', message: expect.any(String) }]);
  });

  it('sends the text as plain text: markup characters arrive as written', async () => {
    const text = '<b>not bold</b> & *not italic* _x_ https://example.com/?a=1&b=2';
    const post = await publishNow(t, key, channelId, text);
    expect(post.status).toBe('published');
    expect(lastPost()).toMatchObject({ method: 'sendMessage', text, parseMode: null });
    expect(post.targets[0].url).toBe(`https://t.me/release_notes/${lastPost().messageId}`);
  });

  describe("the target's options", () => {
    const publishWith = async (channel: string, content: string, options: unknown, mediaIds: string[] = []) => {
      const created = await t.request('POST', '/api/posts', {
        key,
        body: {
          content,
          channelIds: [channel],
          mediaIds,
          targets: [{ channelId: channel, options }],
          publishNow: true,
        },
      });
      expect(created.status).toBe(201);
      return waitFor(
        async () => (await t.request('GET', `/api/posts/${created.body.id}`, { key })).body,
        (p) => p.status === 'published' || p.status === 'failed',
        20_000,
      );
    };

    it('sends a text silently, protected and without link preview', async () => {
      const options = { disableNotification: true, protectContent: true, disableLinkPreview: true };
      const post = await publishWith(channelId, 'Quiet notes https://example.com/notes', options);
      expect(post.status).toBe('published');
      expect(post.targets[0].options).toEqual(options);
      expect(lastPost()).toMatchObject({
        method: 'sendMessage',
        disableNotification: true,
        protectContent: true,
        linkPreviewDisabled: true,
        messageThreadId: null,
      });
      const plain = await publishNow(t, key, channelId, 'Loud notes https://example.com/notes');
      expect(plain.status).toBe('published');
      expect(lastPost()).toMatchObject({
        disableNotification: false,
        protectContent: false,
        linkPreviewDisabled: false,
      });
    });

    it('sends a photo into a forum topic of the group, and an album with the same options', async () => {
      const png = await uploadMedia(t, key, makePng(32, 24), 't.png', 'image/png');
      const one = await publishWith(
        groupChannelId,
        'In the release topic',
        { messageThreadId: 7, disableNotification: true },
        [png],
      );
      expect(one.status).toBe('published');
      expect(lastPost()).toMatchObject({ method: 'sendPhoto', messageThreadId: 7, disableNotification: true });
      const png2 = await uploadMedia(t, key, makePng(24, 32), 'u.png', 'image/png');
      const album = await publishWith(
        groupChannelId,
        'Two in the topic',
        { messageThreadId: 7, protectContent: true },
        [png, png2],
      );
      expect(album.status).toBe('published');
      expect(lastPost()).toMatchObject({ method: 'sendMediaGroup', messageThreadId: 7, protectContent: true });
    });

    it('fails the target with CONTENT_REJECTED when the topic is not in the chat', async () => {
      const posts = fake.posts.length;
      const post = await publishWith(groupChannelId, 'Lost topic', { messageThreadId: 99 });
      expect(post.status).toBe('failed');
      expect(post.targets[0].error).toEqual({
        code: 'CONTENT_REJECTED',
        message: expect.stringContaining('message thread not found'),
      });
      expect(fake.posts.length).toBe(posts);
    });

    it('refuses options that break the schema at targets[0].options.<field>, before Telegram is called', async () => {
      const calls = fake.requests.length;
      const res = await t.request('POST', '/api/posts', {
        key,
        body: {
          content: 'bad options',
          channelIds: [channelId],
          targets: [{ channelId, options: { messageThreadId: 'seven', silent: true } }],
          publishNow: true,
        },
      });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('VALIDATION_ERROR');
      expect(res.body.details.map((d: { field: string }) => d.field)).toEqual([
        'targets[0].options.silent',
        'targets[0].options.messageThreadId',
      ]);
      expect(fake.requests.length).toBe(calls);
    });
  });

  it('sends one photo with its caption, one video with sendVideo, and several as an album', async () => {
    const png = await uploadMedia(t, key, makePng(32, 24), 'a.png', 'image/png');
    const mp4 = await uploadMedia(t, key, makeMp4(), 'clip.mp4', 'video/mp4');

    expect((await publishNow(t, key, channelId, 'a photo', [png])).status).toBe('published');
    expect(lastPost()).toMatchObject({ method: 'sendPhoto', text: 'a photo', media: [{ type: 'photo' }] });

    expect((await publishNow(t, key, channelId, 'a video', [mp4])).status).toBe('published');
    expect(lastPost()).toMatchObject({
      method: 'sendVideo',
      text: 'a video',
      media: [{ type: 'video', contentType: 'video/mp4' }],
    });

    const album = await publishNow(t, key, channelId, 'an album', [png, mp4]);
    expect(album.status).toBe('published');
    expect(lastPost()).toMatchObject({
      method: 'sendMediaGroup',
      text: 'an album',
      media: [{ type: 'photo' }, { type: 'video' }],
    });
    expect(album.targets[0].platformPostId).toBe(String(lastPost().messageId));
  });

  it('validates the caption limit of posts with media, and the text limit of posts without', async () => {
    const png = await uploadMedia(t, key, makePng(8, 8), 'b.png', 'image/png');
    const long = 'x'.repeat(1025);
    const withMedia = await t.request('POST', '/api/posts/validate', {
      key,
      body: { content: long, channelIds: [channelId], mediaIds: [png] },
    });
    expect(withMedia.body.problems).toEqual([
      expect.objectContaining({ field: 'content', message: expect.stringContaining('1024 in the caption') }),
    ]);
    const textOnly = await t.request('POST', '/api/posts/validate', {
      key,
      body: { content: long, channelIds: [channelId] },
    });
    expect(textOnly.body).toEqual({ valid: true, problems: [], warnings: [] });
  });

  it("waits the retry_after Telegram's 429 asks for before trying again", async () => {
    fake.retryAfterSeconds = 2;
    fake.failNext(1, 429, 'sendMessage');
    fake.clearRequests();
    const post = await publishNow(t, key, channelId, 'after the flood wait');
    expect(post.status).toBe('published');
    const sends = fake.requests.filter((r) => r.route === 'sendMessage');
    expect(sends).toHaveLength(2);
    // FAST_PUBLISHING_ENV retries after 200 ms; Telegram asked for 2 s.
    expect(sends[1].at - sends[0].at).toBeGreaterThanOrEqual(1900);
  });

  it('offers no analytics: the adapter answers nulls without asking Telegram', async () => {
    const http = new OutboundHttp({ allowPrivate: true });
    try {
      fake.clearRequests();
      const adapter = new TelegramProvider(http, fake.baseUrl);
      const { metrics } = await adapter.fetchMetrics(
        { botToken: TELEGRAM_BOT.token, chatId: String(TELEGRAM_CHANNEL_ID) },
        { platformPostId: '100', url: '' },
      );
      expect(metrics).toMatchObject({ likes: null, reposts: null, replies: null, impressions: null });
      expect(metrics.raw).toMatchObject({ offered: false });
      expect(fake.requests).toHaveLength(0);
    } finally {
      http.close();
    }
  });

  // Last: the bot loses its right to post.
  it('disconnects the channel when the bot is removed from the chat, without the token in the message', async () => {
    fake.chats.get(TELEGRAM_CHANNEL_ID)!.members.set(TELEGRAM_BOT.id, { status: 'left' });
    const post = await publishNow(t, key, channelId, 'after the kick');
    expect(post.status).toBe('failed');
    expect(post.targets[0].error).toEqual({
      code: 'CREDENTIALS_REVOKED',
      message: expect.stringContaining('no longer lets the bot post in this chat'),
    });
    expect(post.targets[0].error.message).not.toContain(TELEGRAM_BOT.token);
    const channel = await t.request('GET', `/api/channels/${channelId}`, { key });
    expect(channel.body.status).toBe('disconnected');
  });
});
