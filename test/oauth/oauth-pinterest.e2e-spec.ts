import { OutboundHttp } from '../../src/common/http/outbound-http';
import { PinterestProvider } from '../../src/providers/pinterest/pinterest.provider';
import { MediaRejectedError, TransientProviderError } from '../../src/providers/provider.errors';
import type { PublishInput } from '../../src/providers/social-provider.interface';
import { PINTEREST_ROUTES, PinterestFake } from '../fakes/pinterest.fake';
import { mediaFrom } from '../providers/media.fixture';
import { MediaClient } from '../media/media-support';
import { makePng } from '../factories/png.factory';
import { TestApp } from '../support/test-app';
import { PUBLIC_BASE_URL, useOAuthApp } from './oauth-harness';

const RECIPES = '549755885175';
const TRAVEL = '549755885176';
const GARDEN = '549755885177';

describe('Pinterest (against the fake)', () => {
  const pinterest = new PinterestFake({
    rateLimitResetSeconds: 1,
    boards: [
      { id: RECIPES, name: 'Recipes' },
      { id: TRAVEL, name: 'Travel', privacy: 'SECRET' },
      { id: GARDEN, name: 'Garden' },
    ],
  });
  const h = useOAuthApp('pinterest', pinterest);
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
      enabled: true,
      limits: {
        maxCharacters: 800,
        maxMedia: 1,
        maxImageBytes: 20 * 1024 * 1024,
        supportedMimeTypes: ['image/jpeg', 'image/png'],
        threads: false,
        firstComment: false,
        video: null,
      },
      optionsSchema: null,
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
    expect(JSON.stringify(res.body.details)).toContain('Pinterest publishes pins with an image');
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

  describe('video pins through the media upload (the adapter alone, until the limits list video)', () => {
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

    it('registers the video, uploads it with the signed fields, waits for processing and pins it', async () => {
      pinterest.videoProcessingPolls = 1;
      const pin = await adapter.publish(await input('a video pin'));
      const [onPinterest] = pinsWith('a video pin');
      expect(pin.platformPostId).toBe(onPinterest.id);
      expect(onPinterest).toEqual(expect.objectContaining({ imageType: 'video', imageBytes: 4096, boardId: RECIPES }));
      expect(checkpoints.get('a video pin')).toEqual({ videoMediaId: onPinterest.videoMediaId });
      // The storage upload carries no bearer token.
      const upload = pinterest.requests.filter((r) => r.route === PINTEREST_ROUTES.mediaUpload).at(-1)!;
      expect(upload.headers.authorization).toBeUndefined();
    });

    it('fails the attempt as transient while the video processes, and the retry resumes without uploading again', async () => {
      pinterest.videoProcessingPolls = 10;
      const registered = calls(PINTEREST_ROUTES.registerMedia);
      const first = adapter.publish(await input('a slow video'));
      await expect(first).rejects.toBeInstanceOf(TransientProviderError);
      await expect(first).rejects.toThrow(/still processing/);
      const mediaId = checkpoints.get('a slow video')?.videoMediaId as string;
      expect(pinterest.media.get(mediaId)?.status).toBe('processing');
      pinterest.media.get(mediaId)!.pollsLeft = 0;
      const pin = await adapter.publish(await input('a slow video', 2));
      expect(pinsWith('a slow video')).toEqual([
        expect.objectContaining({ id: pin.platformPostId, videoMediaId: mediaId }),
      ]);
      expect(calls(PINTEREST_ROUTES.registerMedia) - registered).toBe(1);
    });

    it('refuses the video when Pinterest cannot process it', async () => {
      pinterest.videoProcessingPolls = 0;
      pinterest.failNextVideo = true;
      await expect(adapter.publish(await input('a broken video'))).rejects.toBeInstanceOf(MediaRejectedError);
      expect(pinsWith('a broken video')).toHaveLength(0);
    });
  });
});
