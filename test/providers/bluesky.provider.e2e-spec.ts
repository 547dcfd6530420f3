import { OutboundHttp } from '../../src/common/http/outbound-http';
import { BLUESKY_LIMITS } from '../../src/providers/bluesky/bluesky.limits';
import { BlueskyProvider } from '../../src/providers/bluesky/bluesky.provider';
import { deterministicTid, isValidTid } from '../../src/providers/bluesky/tid';
import {
  ContentRejectedError,
  CredentialsRevokedError,
  InvalidCredentialsError,
  TransientProviderError,
} from '../../src/providers/provider.errors';
import type { ConnectedAccount, PublishInput } from '../../src/providers/social-provider.interface';
import { BLUESKY_FAKE_PART_BYTES, BLUESKY_ROUTES, BlueskyFake, BlueskyFakeOptions } from '../fakes/bluesky.fake';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ProcessingPendingError } from '../../src/providers/provider.errors';
import { TINY_PNG, mediaFrom } from './media.fixture';

const VIDEO = readFileSync(join(__dirname, '../fixtures/video/h264-aac-4s.mp4'));

const LOGIN = { identifier: 'alice.test', appPassword: 'app-pass' };

describe('BlueskyProvider against BlueskyFake', () => {
  let fake: BlueskyFake;
  let base: string;
  let http: OutboundHttp;
  let provider: BlueskyProvider;
  let account: ConnectedAccount;

  async function setup(options: BlueskyFakeOptions = {}, timeoutMs = 2000): Promise<void> {
    fake = new BlueskyFake({
      accounts: [
        {
          identifier: 'alice.test',
          password: 'app-pass',
          handle: 'alice.test',
          displayName: 'Alice 🦋',
          avatar: 'https://cdn.example/alice.jpg',
        },
      ],
      knownHandles: { 'bob.test': 'did:plc:bob0000000000000000000000' },
      ...options,
    });
    base = await fake.start();
    http = new OutboundHttp({ allowPrivate: true, defaultTimeoutMs: timeoutMs });
    provider = new BlueskyProvider(http);
    account = await provider.connect({ ...LOGIN, serviceUrl: base });
    fake.clearRequests();
  }

  function input(overrides: Partial<PublishInput> = {}): PublishInput {
    return {
      credentials: account.credentials,
      content: 'Hello Bluesky',
      media: [],
      idempotencyKey: 'target-1',
      createdAt: new Date('2025-01-01T10:00:00.000Z'),
      checkpoint: null,
      saveCheckpoint: async () => {},
      ...overrides,
    };
  }

  function routes(): string[] {
    return fake.requests.map((r) => r.route);
  }

  afterEach(async () => {
    http.close();
    await fake.stop();
  });

  describe('connect', () => {
    beforeEach(() => setup());

    it('returns the profile, limits and the session to store', () => {
      const did = fake.account('alice.test')?.did;
      expect(did).toMatch(/^did:plc:/);
      expect(account).toEqual({
        externalId: did,
        name: 'Alice 🦋',
        handle: '@alice.test',
        avatarUrl: 'https://cdn.example/alice.jpg',
        profileUrl: 'https://bsky.app/profile/alice.test',
        limits: BLUESKY_LIMITS,
        credentials: {
          identifier: 'alice.test',
          appPassword: 'app-pass',
          serviceUrl: base,
          did,
          handle: 'alice.test',
          accessJwt: expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/),
          refreshJwt: expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/),
        },
      });
    });

    it('refuses a wrong app password with the server message', async () => {
      const err = await provider
        .connect({ identifier: 'alice.test', appPassword: 'wrong-pass', serviceUrl: base })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(InvalidCredentialsError);
      expect((err as Error).message).toContain('Invalid identifier or password');
      expect((err as Error).message).not.toContain('wrong-pass');
    });

    it('refuses malformed credentials and unreachable services', async () => {
      await expect(provider.connect({ identifier: 'alice.test' })).rejects.toBeInstanceOf(InvalidCredentialsError);
      fake.failNext(1, 502);
      await expect(provider.connect({ ...LOGIN, serviceUrl: base })).rejects.toThrow(
        /could not be reached \(HTTP 502\)/,
      );
      const port = new URL(base).port;
      await fake.stop();
      await expect(provider.connect({ ...LOGIN, serviceUrl: `http://127.0.0.1:${port}` })).rejects.toThrow(
        /could not be reached/,
      );
    });

    it('falls back to the handle when the profile cannot be read', async () => {
      fake.failNext(1, 500, BLUESKY_ROUTES.getProfile);
      const connected = await provider.connect({ ...LOGIN, serviceUrl: base });
      expect(connected.name).toBe('alice.test');
      expect(connected.avatarUrl).toBeNull();
    });
  });

  describe('publish', () => {
    it('creates the post under a deterministic TID record key', async () => {
      await setup();
      const result = await provider.publish(input());
      const rkey = deterministicTid(new Date('2025-01-01T10:00:00.000Z'), 'target-1');
      expect(isValidTid(rkey)).toBe(true);
      const did = account.externalId;
      expect(result).toEqual({
        platformPostId: `at://${did}/app.bsky.feed.post/${rkey}`,
        url: `https://bsky.app/profile/alice.test/post/${rkey}`,
        replyRef: { cid: fake.posts[0].cid },
      });
      expect(fake.posts).toHaveLength(1);
      expect(fake.posts[0].record).toEqual({
        $type: 'app.bsky.feed.post',
        text: 'Hello Bluesky',
        createdAt: '2025-01-01T10:00:00.000Z',
      });
    });

    it('publishes a reply with root and parent strong refs, reading a CID it was not given', async () => {
      await setup();
      const root = await provider.publish(input());
      const rootRef = { platformPostId: root.platformPostId, url: root.url, replyRef: null };
      const reply = await provider.publish(
        input({ content: 'A reply', idempotencyKey: 'target-1:part-1', replyTo: { root: rootRef, parent: rootRef } }),
      );
      const strong = { uri: root.platformPostId, cid: root.replyRef!.cid };
      expect(fake.getPost(reply.platformPostId)?.record.reply).toEqual({ root: strong, parent: strong });
      expect(routes()).toContain(BLUESKY_ROUTES.getRecord);
    });

    it.each(['internal-error', 'invalid-request'] as const)(
      'never creates a second post for the same publication (PDS answers %s for a taken rkey)',
      async (duplicateRkey) => {
        await setup({ duplicateRkey });
        const first = await provider.publish(input());
        const second = await provider.publish(input());
        expect(second).toEqual(first);
        expect(fake.posts).toHaveLength(1);
        expect(routes()).toContain(BLUESKY_ROUTES.getRecord);
        await provider.publish(input({ idempotencyKey: 'target-2' }));
        expect(fake.posts).toHaveLength(2);
      },
    );

    it('does not duplicate when the client gave up mid-request and retries', async () => {
      await setup();
      const hold = fake.holdNextPublish();
      const attempt = provider.publish(input()).catch((e: unknown) => e);
      await hold.arrived;
      http.close();
      expect(await attempt).toBeInstanceOf(TransientProviderError);
      hold.release();
      const retry = await provider.publish(input());
      expect(fake.posts).toHaveLength(1);
      expect(retry.platformPostId).toBe(fake.posts[0].uri);
    });

    it('refuses to adopt a different post that took the same record key', async () => {
      await setup();
      await provider.publish(input());
      await expect(provider.publish(input({ content: 'Something else' }))).rejects.toBeInstanceOf(ContentRejectedError);
      expect(fake.posts).toHaveLength(1);
    });

    it('uploads images as blobs and embeds them', async () => {
      await setup();
      await provider.publish(input({ media: [mediaFrom(TINY_PNG, { width: 4, height: 3 })] }));
      expect(fake.blobs).toHaveLength(1);
      const blob = fake.blobs[0];
      expect(blob).toMatchObject({ mimeType: 'image/png', size: TINY_PNG.length });
      expect(blob.bytes.equals(TINY_PNG)).toBe(true);
      expect(blob.cid).toMatch(/^bafkrei[a-z2-7]+$/);
      expect(fake.posts[0].record.embed).toEqual({
        $type: 'app.bsky.embed.images',
        images: [
          {
            alt: '',
            image: { $type: 'blob', ref: { $link: blob.cid }, mimeType: 'image/png', size: TINY_PNG.length },
            aspectRatio: { width: 4, height: 3 },
          },
        ],
      });
      const upload = fake.requests.find((r) => r.route === BLUESKY_ROUTES.uploadBlob);
      expect(upload?.headers['content-type']).toBe('image/png');
    });

    it('adds link, tag and mention facets with UTF-8 byte offsets', async () => {
      await setup();
      const text = '🦋 see https://example.com/x #tag and @bob.test, not @nobody.test';
      await provider.publish(input({ content: text }));
      const facets = fake.posts[0].record.facets as Array<{ index: { byteStart: number; byteEnd: number } }>;
      expect(facets).toEqual([
        {
          index: { byteStart: 9, byteEnd: 30 },
          features: [{ $type: 'app.bsky.richtext.facet#link', uri: 'https://example.com/x' }],
        },
        { index: { byteStart: 31, byteEnd: 35 }, features: [{ $type: 'app.bsky.richtext.facet#tag', tag: 'tag' }] },
        {
          index: { byteStart: 40, byteEnd: 49 },
          features: [{ $type: 'app.bsky.richtext.facet#mention', did: 'did:plc:bob0000000000000000000000' }],
        },
      ]);
      const bytes = Buffer.from(text, 'utf8');
      expect(facets.map((f) => bytes.subarray(f.index.byteStart, f.index.byteEnd).toString())).toEqual([
        'https://example.com/x',
        '#tag',
        '@bob.test',
      ]);
    });

    it('refreshes an expired access token and returns the new session', async () => {
      await setup();
      fake.expireAccessTokens();
      const result = await provider.publish(input());
      expect(fake.posts).toHaveLength(1);
      expect(routes()).toEqual([
        BLUESKY_ROUTES.createRecord,
        BLUESKY_ROUTES.refreshSession,
        BLUESKY_ROUTES.createRecord,
      ]);
      expect(result.credentials).toMatchObject({ did: account.externalId, handle: 'alice.test' });
      expect(result.credentials?.accessJwt).not.toBe(account.credentials.accessJwt);
      expect(result.credentials?.refreshJwt).not.toBe(account.credentials.refreshJwt);
      // The returned session works without another refresh.
      fake.clearRequests();
      const next = await provider.publish(input({ idempotencyKey: 'target-2', credentials: result.credentials }));
      expect(next.credentials).toBeUndefined();
      expect(routes()).toEqual([BLUESKY_ROUTES.createRecord]);
    });

    it('logs in again with the app password when the refresh token is dead too', async () => {
      await setup();
      fake.revokeToken(String(account.credentials.refreshJwt));
      fake.expireAccessTokens();
      const result = await provider.publish(input());
      expect(routes()).toEqual([
        BLUESKY_ROUTES.createRecord,
        BLUESKY_ROUTES.refreshSession,
        BLUESKY_ROUTES.createSession,
        BLUESKY_ROUTES.createRecord,
      ]);
      expect(result.credentials?.accessJwt).toBeDefined();
      expect(fake.posts).toHaveLength(1);
    });

    it('throws CredentialsRevokedError when the app password is revoked', async () => {
      await setup();
      fake.revokeAll();
      const err = await provider.publish(input()).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(CredentialsRevokedError);
      expect((err as Error).message).toContain('Invalid identifier or password');
      expect((err as Error).message).not.toContain('app-pass');
      expect(routes()).toEqual([
        BLUESKY_ROUTES.createRecord,
        BLUESKY_ROUTES.refreshSession,
        BLUESKY_ROUTES.createSession,
      ]);
      expect(fake.posts).toHaveLength(0);
    });

    it('maps 5xx to TransientProviderError', async () => {
      await setup();
      fake.failNext(1, 500, BLUESKY_ROUTES.createRecord);
      await expect(provider.publish(input())).rejects.toMatchObject({ name: 'TransientProviderError', status: 500 });
      fake.failNext(1, 503);
      await expect(provider.publish(input())).rejects.toBeInstanceOf(TransientProviderError);
      await provider.publish(input());
      expect(fake.posts).toHaveLength(1);
    });

    it('maps 429 to a rate-limited TransientProviderError', async () => {
      await setup();
      fake.failNext(1, 429);
      const err = (await provider.publish(input()).catch((e: unknown) => e)) as TransientProviderError;
      expect(err).toBeInstanceOf(TransientProviderError);
      expect(err.code).toBe('PROVIDER_RATE_LIMITED');
      expect(err.retryAfterSeconds).toBeGreaterThanOrEqual(59);
      expect(err.retryAfterSeconds).toBeLessThanOrEqual(61);
    });

    it('maps a timeout to TransientProviderError', async () => {
      await setup({}, 150);
      fake.setLatency(1000, BLUESKY_ROUTES.createRecord);
      await expect(provider.publish(input())).rejects.toBeInstanceOf(TransientProviderError);
    });

    it('maps a refused record to ContentRejectedError with the server message', async () => {
      await setup();
      const err = await provider.publish(input({ content: 'x'.repeat(301) })).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ContentRejectedError);
      expect((err as Error).message).toContain('300 graphemes');
    });
  });

  describe('fetchMetrics', () => {
    it('returns the counts of the post', async () => {
      await setup();
      const ref = await provider.publish(input());
      fake.setCounts(ref.platformPostId, { likes: 5, reposts: 4, replies: 3, quotes: 2 });
      await expect(provider.fetchMetrics(account.credentials, ref)).resolves.toEqual({
        metrics: {
          likes: 5,
          reposts: 4,
          replies: 3,
          quotes: 2,
          impressions: null,
          raw: { likeCount: 5, repostCount: 4, replyCount: 3, quoteCount: 2 },
        },
      });
    });

    it('refreshes the session and reports the new credentials', async () => {
      await setup();
      const ref = await provider.publish(input());
      fake.expireAccessTokens();
      const result = await provider.fetchMetrics(account.credentials, ref);
      expect(result.metrics.likes).toBe(0);
      expect(result.credentials?.accessJwt).toEqual(expect.any(String));
    });

    it('maps a revoked account and a missing post', async () => {
      await setup();
      const ref = await provider.publish(input());
      await expect(
        provider.fetchMetrics(account.credentials, { ...ref, platformPostId: `${ref.platformPostId}x` }),
      ).rejects.toBeInstanceOf(ContentRejectedError);
      fake.revokeAll();
      await expect(provider.fetchMetrics(account.credentials, ref)).rejects.toBeInstanceOf(CredentialsRevokedError);
    });
  });

  describe('video (app.bsky.video.*, checked against the lexicons)', () => {
    const video = () =>
      mediaFrom(VIDEO, { id: 'v1', mimeType: 'video/mp4', filename: 'clip.mp4', width: 320, height: 240 });
    /** Publishes until the video service's job is done (each attempt reads the job once). */
    async function publishVideo(p: BlueskyProvider) {
      let checkpoint: Record<string, unknown> | null = null;
      for (let attempt = 1; attempt <= 20; attempt += 1) {
        try {
          return await p.publish(
            input({ media: [video()], checkpoint, saveCheckpoint: async (state) => void (checkpoint = state) }),
          );
        } catch (err) {
          if (!(err instanceof ProcessingPendingError)) throw err;
        }
      }
      throw new Error('the video job never completed');
    }

    it('uploads with uploadVideo and no query parameters: the lexicon declares none (did and name were refused)', async () => {
      await setup();
      const ref = await publishVideo(new BlueskyProvider(http, { videoServiceUrl: base }));
      expect(fake.getPost(ref.platformPostId)?.record.embed).toEqual(
        expect.objectContaining({ $type: 'app.bsky.embed.video', aspectRatio: { width: 320, height: 240 } }),
      );
      const upload = fake.requests.find((r) => r.route === BLUESKY_ROUTES.uploadVideo);
      expect(upload?.query).toBe('');
      expect(fake.descriptionViolations).toEqual([]);
    });

    it('sends a video above the multipart threshold in parts: startUpload, uploadPart of exact sizes, finishUpload', async () => {
      await setup();
      BLUESKY_FAKE_PART_BYTES.value = 64 * 1024;
      try {
        const parts = new BlueskyProvider(http, { videoServiceUrl: base, videoMultipartAboveBytes: 1000 });
        const ref = await publishVideo(parts);
        expect(fake.getPost(ref.platformPostId)?.record.embed).toEqual(
          expect.objectContaining({ $type: 'app.bsky.embed.video' }),
        );
        const partCalls = fake.requests.filter((r) => r.route === BLUESKY_ROUTES.uploadPart);
        expect(partCalls).toHaveLength(Math.ceil(VIDEO.length / (64 * 1024)));
        expect(partCalls.map((r) => new URLSearchParams(r.query).get('partNumber'))).toEqual(
          partCalls.map((_, i) => String(i + 1)),
        );
        expect(routes()).not.toContain(BLUESKY_ROUTES.uploadVideo);
        expect(fake.multipartUploads).toBe(1);
        expect(fake.descriptionViolations).toEqual([]);
      } finally {
        BLUESKY_FAKE_PART_BYTES.value = 5 * 1024 * 1024;
      }
    });
  });
});
