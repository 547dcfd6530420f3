import { OutboundHttp } from '../../src/common/http/outbound-http';
import { PinterestProvider } from '../../src/providers/pinterest/pinterest.provider';
import { PINTEREST_OPTIONS_SCHEMA } from '../../src/providers/pinterest/pinterest.options';
import { ProcessingPendingError, VideoProcessingFailedError } from '../../src/providers/provider.errors';
import { ProviderRegistry } from '../../src/providers/provider.registry';
import type { PublishInput } from '../../src/providers/social-provider.interface';
import { PINTEREST_ROUTES, PinterestFake } from '../fakes/pinterest.fake';
import { mediaFrom } from '../providers/media.fixture';
import { MediaClient } from '../media/media-support';
import { makePng } from '../factories/png.factory';
import { makeVideo } from '../providers/chat-network-support';
import { TestApp } from '../support/test-app';
import { PUBLIC_BASE_URL, useOAuthApp } from './oauth-harness';

const RECIPES = '549755885175';
const TRAVEL = '549755885176';
const GARDEN = '549755885177';
const GARDEN_SECTION = '5000000000001';

describe('Pinterest (against the fake)', () => {
  const pinterest = new PinterestFake({
    rateLimitResetSeconds: 1,
    boards: [
      { id: RECIPES, name: 'Recipes' },
      { id: TRAVEL, name: 'Travel', privacy: 'SECRET' },
      { id: GARDEN, name: 'Garden', sections: [GARDEN_SECTION] },
    ],
  });
  // Video processing read again after 250 ms (the publisher's shortest wait) instead of 3 s.
  const h = useOAuthApp('pinterest', pinterest, { env: { PINTEREST_VIDEO_POLL_MS: '250' } });
  let t: TestApp;
  let key: string;
  beforeAll(() => ({ t, key } = h));

  let recipes: string;
  let travel: string;
  const pinsWith = (text: string) => pinterest.pins.filter((p) => p.description === text);
  const uploadPng = async (altText?: string) => {
    const png = makePng(40, 30);
    const client = new MediaClient(h.t, key);
    const init = await client.initialize({ filename: 'pin.png', mimeType: 'image/png', size: png.length, altText });
    expect((await client.chunk(init.body.id, 0, png)).status).toBe(200);
    expect((await client.finalize(init.body.id)).body.status).toBe('ready');
    return { id: init.body.id as string, bytes: png.length };
  };

  it('lists Pinterest as an OAuth network with its limits', async () => {
    const res = await t.request('GET', '/api/providers', { key });
    expect(res.body.data.find((p: any) => p.id === 'pinterest')).toEqual({
      id: 'pinterest',
      name: 'Pinterest',
      connect: 'oauth',
      apiVersion: 'v5',
      apiSunset: null,
      enabled: true,
      limits: {
        maxCharacters: 800,
        maxMedia: 1,
        maxImageBytes: 20 * 1024 * 1024,
        supportedMimeTypes: ['image/jpeg', 'image/png', 'video/mp4', 'video/quicktime'],
        threads: false,
        firstComment: false,
        video: {
          maxBytes: 2 * 1024 ** 3,
          minDurationSeconds: 4,
          maxDurationSeconds: 900,
          mimeTypes: ['video/mp4', 'video/quicktime'],
          maxPerPost: 1,
          minAspectRatio: 0.5,
          maxAspectRatio: 1.91,
          mixWithImages: false,
        },
      },
      optionsSchema: JSON.parse(JSON.stringify(PINTEREST_OPTIONS_SCHEMA)),
    });
  });

  it("asks Pinterest's consent page for comma-separated scopes", async () => {
    const res = await h.start();
    expect(res.status).toBe(201);
    const url = new URL(res.body.authorizationUrl);
    expect(url.origin + url.pathname).toBe(`${pinterest.baseUrl}/oauth/`);
    expect(url.searchParams.get('scope')).toBe('user_accounts:read,boards:read,pins:read,pins:write');
    expect(url.searchParams.get('redirect_uri')).toBe(`${PUBLIC_BASE_URL}/api/oauth/pinterest/callback`);
  });

  it('lists the boards at connection and makes one channel per chosen board', async () => {
    const channels = await h.channelCount();
    const connectionId = (await h.authorize()).get('connectionId')!;
    expect(await h.channelCount()).toBe(channels);
    const listed = await h.getConnection(connectionId);
    expect(listed.body.targets).toEqual([
      {
        id: RECIPES,
        kind: 'personal',
        name: 'Recipes',
        handle: 'contract_pinner',
        avatarUrl: `${pinterest.baseUrl}/avatars/contract_pinner.jpg`,
        profileUrl: 'https://www.pinterest.com/contract_pinner/',
        channelId: null,
      },
      expect.objectContaining({ id: TRAVEL, name: 'Travel' }),
      expect.objectContaining({ id: GARDEN, name: 'Garden' }),
    ]);
    const chosen = await h.choose(connectionId, [RECIPES, TRAVEL]);
    expect(chosen.status).toBe(201);
    [recipes, travel] = chosen.body.data.map((c: { id: string }) => c.id);
    expect(chosen.body.data.map((c: { name: string }) => c.name)).toEqual(['Recipes', 'Travel']);
    expect(await h.storedCredentials(travel)).toEqual(
      expect.objectContaining({ boardId: TRAVEL, username: 'contract_pinner', refreshToken: expect.any(String) }),
    );
  });

  it('refuses a pin without an image before it reaches Pinterest', async () => {
    const res = await t.request('POST', '/api/posts', {
      key,
      body: { content: 'no image', channelIds: [recipes], publishNow: true },
    });
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body.details)).toContain('Pinterest publishes pins with an image or a video');
  });

  it("pins to another board's section with a title, a link and a dominant color from the target's options", async () => {
    const image = await uploadPng('Tomatoes on the vine');
    const options = {
      boardId: GARDEN,
      boardSectionId: GARDEN_SECTION,
      title: 'Tomatoes in June',
      link: 'https://example.com/tomatoes',
      dominantColor: '#C0392B',
    };
    const id = await h.publishNow(recipes, 'Grow your own tomatoes', [image.id], {
      targets: [{ channelId: recipes, options }],
    });
    const post = await h.settled(id);
    expect(post.status).toBe('published');
    expect(post.targets[0].options).toEqual(options);
    expect(pinsWith('Grow your own tomatoes')).toEqual([
      expect.objectContaining({
        boardId: GARDEN,
        boardSectionId: GARDEN_SECTION,
        title: 'Tomatoes in June',
        link: 'https://example.com/tomatoes',
        dominantColor: '#C0392B',
        altText: 'Tomatoes on the vine',
      }),
    ]);
  });

  it("fails the target naming options.boardId when the board is not the account's", async () => {
    const image = await uploadPng();
    const id = await h.publishNow(recipes, 'to a board of someone else', [image.id], {
      targets: [{ channelId: recipes, options: { boardId: '999999999' } }],
    });
    const post = await h.settled(id);
    expect(post.status).toBe('failed');
    expect(post.targets[0].error).toEqual({
      code: 'CONTENT_REJECTED',
      message: expect.stringContaining('options.boardId'),
    });
  });

  it('refuses options that break the schema at targets[0].options.<field>, before Pinterest is called', async () => {
    const image = await uploadPng();
    const pins = pinterest.pins.length;
    const res = await t.request('POST', '/api/posts', {
      key,
      body: {
        content: 'bad options',
        channelIds: [recipes],
        mediaIds: [image.id],
        targets: [{ channelId: recipes, options: { title: 't'.repeat(101), dominantColor: 'red' } }],
        publishNow: true,
      },
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('VALIDATION_ERROR');
    expect(res.body.details).toEqual([
      { field: 'targets[0].options.title', message: expect.stringContaining('at most 100') },
      { field: 'targets[0].options.dominantColor', message: expect.stringContaining('must match') },
    ]);
    expect(pinterest.pins.length).toBe(pins);
  });

  it('publishes a video pin: registers the media, uploads it once, polls its processing without a worker, then pins it with a cover', async () => {
    pinterest.videoProcessingPolls = 2;
    const registered = pinterest.requests.filter((r) => r.route === PINTEREST_ROUTES.registerMedia).length;
    const client = new MediaClient(h.t, key);
    const video = makeVideo({ seconds: 5, width: 64, height: 96 });
    const init = await client.initialize({ filename: 'pin.mp4', mimeType: 'video/mp4', size: video.length });
    expect((await client.chunk(init.body.id, 0, video)).status).toBe(200);
    expect((await client.finalize(init.body.id)).body.status).toBe('ready');
    const post = await h.settled(
      await h.publishNow(recipes, 'A video pin through the app', [init.body.id], {
        targets: [{ channelId: recipes, options: { title: 'Five seconds of blue' } }],
      }),
      60_000,
    );
    expect(post.status).toBe('published');
    const [pin] = pinsWith('A video pin through the app');
    expect(pin).toEqual(
      expect.objectContaining({
        boardId: RECIPES,
        imageType: 'video',
        imageBytes: video.length,
        title: 'Five seconds of blue',
        cover: { keyFrameTime: 0 },
      }),
    );
    expect(post.targets[0].platformPostId).toBe(pin.id);
    const reads = pinterest.requests.filter(
      (r) => r.route === PINTEREST_ROUTES.mediaStatus && r.path.endsWith(`/${pin.videoMediaId}`),
    );
    // Processing twice, then succeeded: three reads, one upload.
    expect(reads).toHaveLength(3);
    expect(pinterest.requests.filter((r) => r.route === PINTEREST_ROUTES.registerMedia).length - registered).toBe(1);
    expect(pinterest.media.get(pin.videoMediaId!)?.status).toBe('succeeded');
  });

  it('refuses a video shorter than the 4 seconds Pinterest takes, naming mediaIds[0]', async () => {
    const client = new MediaClient(h.t, key);
    const video = makeVideo({ seconds: 1, width: 64, height: 64 });
    const init = await client.initialize({ filename: 'short.mp4', mimeType: 'video/mp4', size: video.length });
    expect((await client.chunk(init.body.id, 0, video)).status).toBe(200);
    expect((await client.finalize(init.body.id)).body.status).toBe('ready');
    const res = await t.request('POST', '/api/posts/validate', {
      key,
      body: { content: 'too short', channelIds: [recipes], mediaIds: [init.body.id] },
    });
    expect(res.body.valid).toBe(false);
    expect(res.body.problems).toEqual([
      expect.objectContaining({ field: 'mediaIds[0]', message: expect.stringContaining('at least 4 s') }),
    ]);
  });

  it("pins the image with its alt text to the channel's board", async () => {
    const image = await uploadPng('A bowl of soup');
    const post = await h.settled(await h.publishNow(travel, 'Soup in Lisbon', [image.id]));
    expect(post.status).toBe('published');
    const [pin] = pinsWith('Soup in Lisbon');
    expect(pin).toEqual(
      expect.objectContaining({
        boardId: TRAVEL,
        altText: 'A bowl of soup',
        imageType: 'image/png',
        imageBytes: image.bytes,
      }),
    );
    expect(post.targets[0]).toEqual(
      expect.objectContaining({ platformPostId: pin.id, url: `https://www.pinterest.com/pin/${pin.id}/` }),
    );
  });

  it('fails the target with CONTENT_REJECTED when the board is gone', async () => {
    const image = await uploadPng();
    pinterest.deleteBoard(TRAVEL);
    const post = await h.settled(await h.publishNow(travel, 'to a deleted board', [image.id]));
    expect(post.status).toBe('failed');
    expect(post.targets[0].attempts).toBe(1);
    expect(post.targets[0].error).toEqual({
      code: 'CONTENT_REJECTED',
      message: expect.stringContaining('Board not found'),
    });
  });

  it('waits for Retry-After after a 429 and pins once', async () => {
    const image = await uploadPng();
    pinterest.failNext(1, 429, PINTEREST_ROUTES.createPin);
    const post = await h.settled(await h.publishNow(recipes, 'rate limited pin', [image.id]));
    expect(post.status).toBe('published');
    expect(post.targets[0].attempts).toBe(2);
    const calls = pinterest.requests.filter((r) => r.route === PINTEREST_ROUTES.createPin).slice(-2);
    expect(calls[1].at - calls[0].at).toBeGreaterThanOrEqual(900); // Retry-After (1 s), not the 200 ms retry delay
    expect(pinsWith('rate limited pin')).toHaveLength(1);
  });

  it("finds the pin on the board when Pinterest's answer was lost, and pins nothing more", async () => {
    const image = await uploadPng();
    pinterest.failAfterCreateNext(503);
    const post = await h.settled(await h.publishNow(recipes, 'answer lost pin', [image.id]));
    expect(post.status).toBe('published');
    expect(post.targets[0].attempts).toBe(2);
    const pins = pinsWith('answer lost pin');
    expect(pins).toHaveLength(1);
    expect(post.targets[0].platformPostId).toBe(pins[0].id);
  });

  it('reads pin analytics: reactions, saves, comments and impressions', async () => {
    const image = await uploadPng();
    const id = await h.publishNow(recipes, 'measured pin', [image.id]);
    expect((await h.settled(id)).status).toBe('published');
    const [pin] = pinsWith('measured pin');
    pinterest.setCounts(pin.id, { likes: 6, reposts: 11, replies: 2, impressions: 420, clicks: 9 });
    const analytics = await h.analytics(id);
    expect(analytics.targets[0].metrics).toEqual({ likes: 6, reposts: 11, replies: 2, quotes: null, impressions: 420 });
    const call = pinterest.requests.filter((r) => r.route === PINTEREST_ROUTES.pinAnalytics).at(-1)!;
    expect(new URLSearchParams(call.query).get('metric_types')).toContain('IMPRESSION');
  });

  it('refreshes an expired token and keeps the refresh token Pinterest does not rotate', async () => {
    const before = await h.storedCredentials(recipes);
    pinterest.expireAccessTokens();
    await h.expireStoredToken(recipes);
    const image = await uploadPng();
    const post = await h.settled(await h.publishNow(recipes, 'after refresh', [image.id]));
    expect(post.status).toBe('published');
    expect(pinterest.refreshCount).toBe(1);
    const after = await h.storedCredentials(recipes);
    expect(after.accessToken).not.toBe(before.accessToken);
    expect(after.refreshToken).toBe(before.refreshToken);
  });

  describe('video pins, the adapter alone: checkpoint, processing and failure', () => {
    const http = new OutboundHttp({ allowPrivate: true, defaultTimeoutMs: 10_000 });
    const adapter = new PinterestProvider(http);
    afterAll(() => http.close());
    const checkpoints = new Map<string, Record<string, unknown>>();
    const clip = () => mediaFrom(Buffer.alloc(4096, 7), { id: 'video-1', mimeType: 'video/mp4', filename: 'clip.mp4' });
    const input = async (content: string, attempt = 1): Promise<PublishInput> => ({
      credentials: await h.storedCredentials(recipes),
      content,
      media: [clip()],
      idempotencyKey: content,
      attempt,
      createdAt: new Date(),
      checkpoint: checkpoints.get(content) ?? null,
      saveCheckpoint: async (state) => void checkpoints.set(content, state),
    });
    const calls = (route: string) => pinterest.requests.filter((r) => r.route === route).length;

    it('uploads with the signed fields and no bearer token, then waits for processing from the checkpoint', async () => {
      pinterest.videoProcessingPolls = 1;
      const registered = calls(PINTEREST_ROUTES.registerMedia);
      const first = adapter.publish(await input('a video pin'));
      await expect(first).rejects.toBeInstanceOf(ProcessingPendingError);
      const mediaId = checkpoints.get('a video pin')?.videoMediaId as string;
      expect(pinterest.media.get(mediaId)?.status).toBe('processing');
      const upload = pinterest.requests.filter((r) => r.route === PINTEREST_ROUTES.mediaUpload).at(-1)!;
      expect(upload.headers.authorization).toBeUndefined();
      const pin = await adapter.publish(await input('a video pin'));
      const [onPinterest] = pinsWith('a video pin');
      expect(pin.platformPostId).toBe(onPinterest.id);
      expect(onPinterest).toEqual(
        expect.objectContaining({ imageType: 'video', imageBytes: 4096, boardId: RECIPES, videoMediaId: mediaId }),
      );
      expect(calls(PINTEREST_ROUTES.registerMedia) - registered).toBe(1);
    });

    it('asks to read the processing again after PINTEREST_VIDEO_POLL_MS (3 s unless configured)', async () => {
      pinterest.videoProcessingPolls = 1;
      const configured = h.t.app.get(ProviderRegistry).get('pinterest');
      const pending = await configured.publish(await input('a configured poll')).catch((e: unknown) => e);
      expect(pending).toBeInstanceOf(ProcessingPendingError);
      expect((pending as ProcessingPendingError).checkAfterMs).toBe(250); // the app's env
      pinterest.videoProcessingPolls = 1;
      const unset = await adapter.publish(await input('a default poll')).catch((e: unknown) => e);
      expect(unset).toBeInstanceOf(ProcessingPendingError);
      expect((unset as ProcessingPendingError).checkAfterMs).toBe(3000);
    });

    it('fails for good when Pinterest cannot process the video', async () => {
      pinterest.videoProcessingPolls = 0;
      pinterest.failNextVideo = true;
      await expect(adapter.publish(await input('a broken video'))).rejects.toBeInstanceOf(VideoProcessingFailedError);
      expect(pinsWith('a broken video')).toHaveLength(0);
    });
  });
});
