import { OutboundHttp } from '../../src/common/http/outbound-http';
import { MastodonProvider } from '../../src/providers/mastodon/mastodon.provider';
import {
  ContentRejectedError,
  CredentialsRevokedError,
  InvalidCredentialsError,
  MediaRejectedError,
  TransientProviderError,
} from '../../src/providers/provider.errors';
import type { PublishInput } from '../../src/providers/social-provider.interface';
import { MASTODON_ROUTES, MastodonFake, MastodonFakeOptions } from '../fakes/mastodon.fake';
import { TINY_PNG, mediaFrom } from './media.fixture';

describe('MastodonProvider against MastodonFake', () => {
  let fake: MastodonFake;
  let base: string;
  let http: OutboundHttp;
  let provider: MastodonProvider;

  async function setup(options: MastodonFakeOptions = {}, timeoutMs = 2000): Promise<void> {
    fake = new MastodonFake({
      tokens: ['tok-a', { token: 'tok-b', username: 'bob', displayName: 'Bob B.' }],
      maxCharacters: 1000,
      ...options,
    });
    base = await fake.start();
    http = new OutboundHttp({ allowPrivate: true, defaultTimeoutMs: timeoutMs });
    provider = new MastodonProvider(http, { mediaPollInitialDelayMs: 5, mediaPollTimeoutMs: 2000 });
  }

  function input(overrides: Partial<PublishInput> = {}): PublishInput {
    return {
      credentials: { instanceUrl: base, accessToken: 'tok-a' },
      content: 'Hello from the test suite https://example.com',
      media: [],
      idempotencyKey: 'target-1',
      createdAt: new Date('2025-01-01T10:00:00Z'),
      checkpoint: null,
      saveCheckpoint: async () => {},
      ...overrides,
    };
  }

  afterEach(async () => {
    http.close();
    await fake.stop();
  });

  describe('connect', () => {
    beforeEach(() => setup());

    it('returns the profile, limits and normalized credentials', async () => {
      const host = new URL(base).host;
      const account = await provider.connect({ instanceUrl: `${base}/`, accessToken: 'tok-b' });
      expect(account).toEqual({
        externalId: `${host}:2`,
        name: 'Bob B.',
        handle: `@bob@${host}`,
        avatarUrl: `${base}/system/accounts/avatars/2/original/avatar.png`,
        profileUrl: `${base}/@bob`,
        limits: {
          maxCharacters: 1000,
          maxMedia: 4,
          maxImageBytes: 16 * 1024 * 1024,
          supportedMimeTypes: expect.arrayContaining(['image/png', 'image/jpeg', 'image/gif', 'image/webp']),
          threads: true,
          // The fake instance's video limits (99 MiB, 120 fps, 8,294,400 pixels).
          video: expect.objectContaining({ maxBytes: 99 * 1024 * 1024, maxFrameRate: 120, maxPerPost: 1 }),
          firstComment: true,
        },
        credentials: { instanceUrl: base, accessToken: 'tok-b' },
      });
      // Images with their size limit, and the video types the instance lists (limits.video has their limits).
      expect(account.limits.supportedMimeTypes.every((t) => t.startsWith('image/') || t.startsWith('video/'))).toBe(
        true,
      );
      expect(fake.requests.find((r) => r.route === MASTODON_ROUTES.verifyCredentials)?.headers.authorization).toBe(
        'Bearer tok-b',
      );
    });

    it('refuses a bad token with the instance error text', async () => {
      const err = await provider.connect({ instanceUrl: base, accessToken: 'nope' }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(InvalidCredentialsError);
      expect((err as Error).message).toContain('The access token is invalid');
      expect((err as Error).message).not.toContain('nope');
    });

    it('refuses malformed credentials', async () => {
      await expect(provider.connect({ instanceUrl: base })).rejects.toBeInstanceOf(InvalidCredentialsError);
      await expect(provider.connect('tok-a')).rejects.toBeInstanceOf(InvalidCredentialsError);
    });

    it('turns an unreachable or failing instance into InvalidCredentialsError', async () => {
      fake.failNext(1, 503);
      await expect(provider.connect({ instanceUrl: base, accessToken: 'tok-a' })).rejects.toThrow(
        /could not be reached \(HTTP 503\)/,
      );
      const port = new URL(base).port;
      await fake.stop();
      const err = await provider
        .connect({ instanceUrl: `http://127.0.0.1:${port}`, accessToken: 'tok-a' })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(InvalidCredentialsError);
      expect((err as Error).message).toMatch(/could not be reached/);
    });

    it('uses default limits when /api/v2/instance fails', async () => {
      fake.failNext(1, 404, MASTODON_ROUTES.instance);
      const account = await provider.connect({ instanceUrl: base, accessToken: 'tok-a' });
      expect(account.limits.maxCharacters).toBe(500);
    });

    it('refuses private instance addresses when private addresses are not allowed', async () => {
      const strict = new OutboundHttp({ allowPrivate: false });
      try {
        const guarded = new MastodonProvider(strict);
        await expect(guarded.connect({ instanceUrl: base, accessToken: 'tok-a' })).rejects.toThrow(/not allowed/);
        expect(fake.requests).toHaveLength(0);
      } finally {
        strict.close();
      }
    });
  });

  describe('publish', () => {
    it('creates a public status with the idempotency key', async () => {
      await setup();
      const result = await provider.publish(input());
      expect(fake.statuses).toHaveLength(1);
      const status = fake.statuses[0];
      expect(result).toEqual({ platformPostId: status.id, url: `${base}/@user1/${status.id}` });
      expect(status).toMatchObject({ text: 'Hello from the test suite https://example.com', visibility: 'public' });
      expect(status.idempotencyKey).toBe('target-1');
    });

    it('never creates a second status for the same idempotency key', async () => {
      await setup();
      const first = await provider.publish(input());
      const second = await provider.publish(input());
      expect(second).toEqual(first);
      expect(fake.statuses).toHaveLength(1);
      await provider.publish(input({ idempotencyKey: 'target-2' }));
      expect(fake.statuses).toHaveLength(2);
    });

    it('does not duplicate when the client gave up mid-request and retries', async () => {
      await setup();
      const hold = fake.holdNextPublish();
      const attempt = provider.publish(input()).catch((e: unknown) => e);
      await hold.arrived;
      http.close(); // the client "dies": its sockets are destroyed
      expect(await attempt).toBeInstanceOf(TransientProviderError);
      hold.release();
      const retry = await provider.publish(input());
      expect(fake.statuses).toHaveLength(1);
      expect(retry.platformPostId).toBe(fake.statuses[0].id);
    });

    it('uploads media as multipart, waits for processing and attaches it', async () => {
      await setup({ mediaPollsBeforeReady: 1 });
      const result = await provider.publish(input({ content: '', media: [mediaFrom(TINY_PNG)] }));
      expect(fake.media).toHaveLength(1);
      const media = fake.media[0];
      expect(media).toMatchObject({ mimeType: 'image/png', filename: 'pixel.png', size: TINY_PNG.length, ready: true });
      expect(media.bytes.equals(TINY_PNG)).toBe(true);
      expect(fake.requests.filter((r) => r.route === MASTODON_ROUTES.getMedia)).toHaveLength(2);
      expect(fake.statuses[0].mediaIds).toEqual([media.id]);
      expect(media.statusId).toBe(result.platformPostId);
    });

    it('does not poll when the instance processed the media synchronously', async () => {
      await setup({ mediaProcessing: 'sync' });
      await provider.publish(input({ media: [mediaFrom(TINY_PNG), mediaFrom(TINY_PNG, { id: 'media-2' })] }));
      expect(fake.requests.filter((r) => r.route === MASTODON_ROUTES.getMedia)).toHaveLength(0);
      expect(fake.statuses[0].mediaIds).toHaveLength(2);
    });

    it('reuses uploaded media when the status call failed and the publication is retried', async () => {
      await setup();
      fake.failNext(1, 502, MASTODON_ROUTES.createStatus);
      await expect(provider.publish(input({ media: [mediaFrom(TINY_PNG)] }))).rejects.toBeInstanceOf(
        TransientProviderError,
      );
      await provider.publish(input({ media: [mediaFrom(TINY_PNG)] }));
      expect(fake.media).toHaveLength(1);
      expect(fake.statuses).toHaveLength(1);
    });

    it('maps a refused media to MediaRejectedError with the instance text', async () => {
      await setup({ supportedMimeTypes: ['image/jpeg'] });
      const err = await provider.publish(input({ media: [mediaFrom(TINY_PNG)] })).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(MediaRejectedError);
      expect((err as Error).message).toContain('File content type is invalid');
      expect(fake.statuses).toHaveLength(0);
    });

    it('refuses media whose bytes do not match the declared size', async () => {
      await setup();
      const err = await provider
        .publish(input({ media: [mediaFrom(TINY_PNG, { size: TINY_PNG.length + 10 })] }))
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(MediaRejectedError);
      expect(fake.media).toHaveLength(0);
    });

    it('maps a refused status to ContentRejectedError with the instance text', async () => {
      await setup({ maxCharacters: 10 });
      const err = await provider.publish(input({ content: 'x'.repeat(11) })).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ContentRejectedError);
      expect((err as Error).message).toContain('character limit of 10 exceeded');
      expect((err as ContentRejectedError).status).toBe(422);
    });

    it('maps a revoked token to CredentialsRevokedError', async () => {
      await setup();
      fake.revokeToken('tok-a');
      const err = await provider.publish(input()).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(CredentialsRevokedError);
      expect((err as Error).message).toContain('The access token is invalid');
      expect((err as Error).message).not.toContain('tok-a');
    });

    it('maps 5xx to TransientProviderError and succeeds afterwards', async () => {
      await setup();
      fake.failNext(1, 500);
      await expect(provider.publish(input())).rejects.toMatchObject({
        name: 'TransientProviderError',
        status: 500,
        code: 'PROVIDER_UNAVAILABLE',
      });
      const result = await provider.publish(input());
      expect(fake.statuses).toHaveLength(1);
      expect(result.platformPostId).toBe(fake.statuses[0].id);
    });

    it('maps 429 to a rate-limited TransientProviderError with the reset delay', async () => {
      await setup({ rateLimitResetSeconds: 120 });
      fake.failNext(1, 429);
      const err = (await provider.publish(input()).catch((e: unknown) => e)) as TransientProviderError;
      expect(err).toBeInstanceOf(TransientProviderError);
      expect(err.code).toBe('PROVIDER_RATE_LIMITED');
      expect(err.retryAfterSeconds).toBeGreaterThanOrEqual(118);
      expect(err.retryAfterSeconds).toBeLessThanOrEqual(120);
    });

    it('maps a timeout to TransientProviderError', async () => {
      await setup({}, 150);
      fake.setLatency(1000, MASTODON_ROUTES.createStatus);
      const started = Date.now();
      await expect(provider.publish(input())).rejects.toBeInstanceOf(TransientProviderError);
      expect(Date.now() - started).toBeLessThan(900);
    });

    it('maps an unreachable instance to TransientProviderError', async () => {
      await setup();
      const credentials = { instanceUrl: base, accessToken: 'tok-a' };
      await fake.stop();
      await expect(provider.publish(input({ credentials }))).rejects.toBeInstanceOf(TransientProviderError);
      await fake.start();
    });
  });

  describe('fetchMetrics', () => {
    it('returns the counts of the status', async () => {
      await setup();
      const ref = await provider.publish(input());
      fake.setCounts(ref.platformPostId, { likes: 7, reposts: 3, replies: 2 });
      const credentials = { instanceUrl: base, accessToken: 'tok-a' };
      await expect(provider.fetchMetrics(credentials, ref)).resolves.toEqual({
        metrics: {
          likes: 7,
          reposts: 3,
          replies: 2,
          quotes: null,
          impressions: null,
          raw: { favourites_count: 7, reblogs_count: 3, replies_count: 2 },
        },
      });
      fake.setCounts(ref.platformPostId, { quotes: 4 });
      const { metrics } = await provider.fetchMetrics(credentials, ref);
      expect(metrics.quotes).toBe(4);
      expect(metrics.raw).toMatchObject({ quotes_count: 4 });
    });

    it('maps errors like publish', async () => {
      await setup();
      const ref = await provider.publish(input());
      fake.revokeAll();
      await expect(provider.fetchMetrics({ instanceUrl: base, accessToken: 'tok-a' }, ref)).rejects.toBeInstanceOf(
        CredentialsRevokedError,
      );
      await expect(
        provider.fetchMetrics({ instanceUrl: base, accessToken: 'tok-b' }, { platformPostId: '1', url: '' }),
      ).rejects.toBeInstanceOf(CredentialsRevokedError);
    });

    it('reports a deleted status as ContentRejectedError', async () => {
      await setup();
      await expect(
        provider.fetchMetrics({ instanceUrl: base, accessToken: 'tok-a' }, { platformPostId: '404', url: '' }),
      ).rejects.toBeInstanceOf(ContentRejectedError);
    });
  });
});
