import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { OutboundHttp } from '../../src/common/http/outbound-http';
import { readSettings, settingsOf } from '../../src/config/settings';
import {
  ContentRejectedError,
  ProcessingPendingError,
  TransientProviderError,
  VideoProcessingFailedError,
} from '../../src/providers/provider.errors';
import type { ConnectedAccount, PublishInput, SocialProvider } from '../../src/providers/social-provider.interface';
import { TikTokAuditRequiredError } from '../../src/providers/tiktok/tiktok-api.client';
import { tiktokPlugin } from '../../src/providers/tiktok/tiktok.provider';
import { TIKTOK_ROUTES, TikTokFake } from '../fakes/tiktok.fake';
import { FileServer } from '../support/file-server';
import { TINY_JPEG, TINY_PNG, mediaFrom } from './media.fixture';

const FIXTURE = readFileSync(join(__dirname, '../fixtures/video/h264-aac-faststart.mp4'));
/** 11 MiB: two chunks of TikTok's 5 MiB minimum, the last one taking the trailing bytes. */
const LARGE = Buffer.concat(
  Array.from({ length: Math.ceil((11 * 1024 * 1024) / FIXTURE.length) }, () => FIXTURE),
).subarray(0, 11 * 1024 * 1024);
const MIB = 1024 * 1024;

/**
 * TikTok's adapter against the fake: creator_info rules, chunked upload, photo posts, the status read
 * once per call (a post still processing is ProcessingPendingError: the publisher polls it later with
 * the checkpoint), audit refusals.
 */
describe('TikTok adapter (against the fake)', () => {
  const fake = new TikTokFake({ processingPolls: 2 });
  const files = new FileServer();
  const http = new OutboundHttp({ allowPrivate: true, defaultTimeoutMs: 5000 });
  let account: ConnectedAccount;

  const make = (env: Record<string, string> = {}): SocialProvider => {
    const spec = tiktokPlugin.settings!;
    return tiktokPlugin.create({
      http,
      settings: settingsOf(
        spec,
        readSettings(Object.values(spec), { ...fake.appEnv(), TIKTOK_UPLOAD_CHUNK_BYTES: String(5 * MIB), ...env }),
      ),
      resolve: () => {
        throw new Error('unused');
      },
    });
  };
  let adapter: SocialProvider;
  const video = (bytes = FIXTURE) =>
    mediaFrom(bytes, {
      id: 'video-1',
      mimeType: 'video/mp4',
      filename: 'v.mp4',
      publicUrl: () => Promise.resolve(`${files.base}/v.mp4`),
    });
  const checkpoints = new Map<string, Record<string, unknown>>();
  const input = (
    key: string,
    overrides: Partial<PublishInput> & { options?: Record<string, unknown> } = {},
  ): PublishInput => ({
    credentials: account.credentials,
    content: `TikTok ${key} #fyp`,
    media: [video()],
    idempotencyKey: key,
    createdAt: new Date(),
    checkpoint: checkpoints.get(key) ?? null,
    saveCheckpoint: async (state: Record<string, unknown>) => void checkpoints.set(key, state),
    options: { privacyLevel: 'PUBLIC_TO_EVERYONE' },
    ...overrides,
  });
  const inits = () => fake.requests.filter((r) => r.route === TIKTOK_ROUTES.init).length;
  /** As the publisher's delayed polls do: publish again with the checkpoint while TikTok processes. */
  const settle = async (key: string, overrides: Parameters<typeof input>[1] = {}) => {
    for (let polls = 0; ; polls++) {
      try {
        return await adapter.publish(input(key, overrides));
      } catch (err) {
        if (!(err instanceof ProcessingPendingError) || polls > 20) throw err;
      }
    }
  };
  const photo = (id: string, bytes = TINY_JPEG, mimeType = 'image/jpeg') =>
    mediaFrom(bytes, {
      id,
      mimeType,
      filename: `${id}.jpeg`,
      publicUrl: () => Promise.resolve(`${files.base}/${id}`),
    });

  beforeAll(async () => {
    const base = await fake.start();
    await files.start();
    files.put('/v.mp4', { type: 'video/mp4', body: FIXTURE });
    for (const id of ['p1', 'p2', 'p3']) files.put(`/${id}`, { type: 'image/jpeg', body: TINY_JPEG });
    files.put('/png', { type: 'image/png', body: TINY_PNG });
    adapter = make();
    account = await adapter.connect({ accessToken: fake.issueToken(), apiBaseUrl: base });
  });
  afterAll(async () => {
    await fake.stop();
    await files.stop();
    http.close();
  });
  beforeEach(() => {
    fake.clearFailures();
    fake.audited = true;
    Object.assign(fake.creators[0], {
      privateAccount: false,
      privacyLevelOptions: ['PUBLIC_TO_EVERYONE', 'MUTUAL_FOLLOW_FRIENDS', 'FOLLOWER_OF_CREATOR', 'SELF_ONLY'],
      commentDisabled: false,
    });
  });

  it('connects as the creator, with open_id and username', () => {
    expect(account).toEqual(
      expect.objectContaining({
        externalId: fake.creators[0].openId,
        handle: 'contract.tiktok',
        profileUrl: 'https://www.tiktok.com/@contract.tiktok',
      }),
    );
    expect(account.credentials).toEqual(
      expect.objectContaining({ openId: fake.creators[0].openId, username: 'contract.tiktok' }),
    );
  });

  it('uploads in chunks by TikTok rules, with the options; while TikTok processes, the polls read the status only', async () => {
    const publication = {
      media: [video(LARGE)],
      options: {
        privacyLevel: 'FOLLOWER_OF_CREATOR',
        disableDuet: true,
        brandOrganic: true,
        isAigc: true,
        videoCoverTimestampMs: 1000,
      },
    };
    const pending = await adapter.publish(input('chunks', publication)).catch((e: unknown) => e);
    expect(pending).toBeInstanceOf(ProcessingPendingError);
    expect((pending as ProcessingPendingError).checkAfterMs).toBe(20); // TIKTOK_STATUS_POLL_MS of the fake's env
    expect(checkpoints.get('chunks')).toEqual(expect.objectContaining({ chunksDone: 2 }));
    fake.clearRequests();
    const ref = await settle('chunks', publication);
    expect(fake.requests.map((r) => r.route)).toEqual([TIKTOK_ROUTES.status, TIKTOK_ROUTES.status]);
    const post = fake.posts.at(-1)!;
    expect(post.postInfo).toEqual({
      title: 'TikTok chunks #fyp',
      privacy_level: 'FOLLOWER_OF_CREATOR',
      disable_comment: false,
      disable_duet: true,
      disable_stitch: false,
      brand_content_toggle: false,
      brand_organic_toggle: true,
      is_aigc: true,
      video_cover_timestamp_ms: 1000,
    });
    expect([post.chunkSize, post.totalChunkCount]).toEqual([5 * MIB, 2]);
    expect(Buffer.concat(post.bytes).equals(LARGE)).toBe(true);
    expect(ref).toEqual({
      platformPostId: post.postId,
      url: `https://www.tiktok.com/@contract.tiktok/video/${post.postId}`,
    });
    expect(checkpoints.get('chunks')).toEqual(
      expect.objectContaining({ publishId: post.publishId, chunksDone: 2, postId: post.postId }),
    );
  });

  it('refuses a post without a privacy level, or with one the creator lacks, naming the allowed values, before posting', async () => {
    fake.creators[0].privacyLevelOptions = ['FOLLOWER_OF_CREATOR', 'SELF_ONLY'];
    const before = inits();
    const none = await adapter.publish(input('no-privacy', { options: {} })).catch((e: unknown) => e);
    expect(none).toBeInstanceOf(ContentRejectedError);
    expect((none as Error).message).toContain(
      'is required (TikTok has the creator choose who can watch, never the app): one of FOLLOWER_OF_CREATOR, SELF_ONLY',
    );
    const wrong = await adapter
      .publish(input('public', { options: { privacyLevel: 'PUBLIC_TO_EVERYONE' } }))
      .catch((e: unknown) => e);
    expect(wrong).toBeInstanceOf(ContentRejectedError);
    expect((wrong as Error).message).toContain('must be one of FOLLOWER_OF_CREATOR, SELF_ONLY for this creator');
    expect(inits()).toBe(before);
  });

  it('keeps comments off when the creator turned them off', async () => {
    fake.creators[0].commentDisabled = true;
    await settle('comments-off', { options: { privacyLevel: 'SELF_ONLY', disableComment: false } });
    expect(fake.posts.at(-1)!.postInfo.disable_comment).toBe(true);
  });

  it('maps the unaudited-app refusal to a typed, permanent error that says what the operator must do', async () => {
    fake.audited = false;
    const err = await adapter.publish(input('unaudited')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TikTokAuditRequiredError);
    expect((err as TikTokAuditRequiredError).transient).toBe(false);
    expect((err as Error).message).toMatch(/only with privacyLevel SELF_ONLY, to accounts set to private.*audited/);
    // An unaudited app posting SELF_ONLY from a private account is accepted, and has no public id.
    fake.creators[0].privateAccount = true;
    const ref = await settle('self-only', { options: { privacyLevel: 'SELF_ONLY' } });
    expect(ref).toEqual({
      platformPostId: fake.posts.at(-1)!.publishId,
      url: 'https://www.tiktok.com/@contract.tiktok',
    });
  });

  it('fails with TikTok fail_reason when processing fails, typed as a failed video processing', async () => {
    fake.failNextPublish('duration_check_failed');
    const err = await settle('failed').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(VideoProcessingFailedError);
    expect((err as Error).message).toContain('duration_check_failed');
  });

  it('re-sends an interrupted chunk, and after a crash resumes from the checkpoint without a second init', async () => {
    const before = inits();
    fake.interruptNextChunks(1);
    await settle('interrupted', { media: [video(LARGE)] });
    expect(Buffer.concat(fake.posts.at(-1)!.bytes).equals(LARGE)).toBe(true);
    expect(inits()).toBe(before + 1);

    fake.interruptNextChunks(5); // the attempt gives up after its first chunk, as a crashed worker would
    const posts = fake.posts.length;
    await expect(adapter.publish(input('crash', { media: [video(LARGE)] }))).rejects.toBeInstanceOf(
      TransientProviderError,
    );
    const ref = await settle('crash', { media: [video(LARGE)], attempt: 2 });
    expect(fake.posts).toHaveLength(posts + 1);
    expect(inits()).toBe(before + 2);
    expect(Buffer.concat(fake.posts.at(-1)!.bytes).equals(LARGE)).toBe(true);
    expect(ref.platformPostId).toBe(fake.posts.at(-1)!.postId);
  });

  it('waits out a rate-limited status read as processing (not an attempt), then reads the same publish id', async () => {
    const before = inits();
    await expect(adapter.publish(input('limited'))).rejects.toBeInstanceOf(ProcessingPendingError);
    fake.rateLimitNextStatus(1);
    const limited = await adapter.publish(input('limited')).catch((e: unknown) => e);
    expect(limited).toBeInstanceOf(ProcessingPendingError);
    expect((limited as ProcessingPendingError).message).toContain('limits status reads');
    expect((limited as ProcessingPendingError).checkAfterMs).toBeGreaterThanOrEqual(1000);
    await settle('limited');
    expect(inits()).toBe(before + 1);
  });

  it('posts photos pulled from their URLs, with the description, title and cover index', async () => {
    const photoInits = () => fake.requests.filter((r) => r.route === TIKTOK_ROUTES.photoInit).length;
    const before = photoInits();
    const ref = await settle('photos', {
      content: 'Three photos #carousel',
      media: [photo('p1'), photo('p2'), photo('p3')],
      options: { privacyLevel: 'PUBLIC_TO_EVERYONE', title: 'Carousel', photoCoverIndex: 2, autoAddMusic: true },
    });
    expect(photoInits()).toBe(before + 1);
    const post = fake.posts.at(-1)!;
    expect(post.mediaType).toBe('PHOTO');
    expect(post.photos).toEqual(
      Array.from({ length: 3 }, () => ({ contentType: 'image/jpeg', bytes: TINY_JPEG.length })),
    );
    expect(post.photoCoverIndex).toBe(2);
    expect(post.postInfo).toEqual(
      expect.objectContaining({
        title: 'Carousel',
        description: 'Three photos #carousel',
        privacy_level: 'PUBLIC_TO_EVERYONE',
        auto_add_music: true,
      }),
    );
    expect(ref.url).toBe(`https://www.tiktok.com/@contract.tiktok/photo/${post.postId}`);
  });

  it('refuses photo options on a video, a cover index past the photos, and PNG photos at validation', () => {
    const limits = account.limits;
    const problems = (media: ReturnType<typeof photo>[], options: Record<string, unknown>) =>
      adapter.validate({ content: 'x', media, options }, limits);
    expect(problems([video()], { privacyLevel: 'SELF_ONLY', photoCoverIndex: 0 })).toContainEqual({
      field: 'options.photoCoverIndex',
      message: 'applies to TikTok photo posts only',
    });
    expect(problems([photo('p1'), photo('p2')], { privacyLevel: 'SELF_ONLY', photoCoverIndex: 2 })).toContainEqual({
      field: 'options.photoCoverIndex',
      message: "must name one of the post's 2 photos (0 to 1)",
    });
    expect(problems([photo('p1')], { privacyLevel: 'SELF_ONLY', disableDuet: true })).toContainEqual({
      field: 'options.disableDuet',
      message: 'applies to TikTok video posts only',
    });
    expect(problems([photo('png', TINY_PNG, 'image/png')], { privacyLevel: 'SELF_ONLY' })).toContainEqual(
      expect.objectContaining({ message: expect.stringContaining('does not accept image/png') }),
    );
    expect(problems([photo('p1'), video()], { privacyLevel: 'SELF_ONLY' })).toContainEqual(
      expect.objectContaining({ message: expect.stringContaining('does not take images and video in one post') }),
    );
  });

  it('lets TikTok download the video from its public URL with TIKTOK_PULL_FROM_URL', async () => {
    const pulling = make({ TIKTOK_PULL_FROM_URL: 'true' });
    for (let polls = 0; ; polls++) {
      const done = await pulling.publish(input('pull')).then(
        () => true,
        (err: unknown) => {
          if (!(err instanceof ProcessingPendingError) || polls > 20) throw err;
          return false;
        },
      );
      if (done) break;
    }
    const post = fake.posts.at(-1)!;
    expect(post.source).toBe('PULL_FROM_URL');
    expect(Buffer.concat(post.bytes).equals(FIXTURE)).toBe(true);
    expect(
      fake.requests.filter(
        (r) => r.route === TIKTOK_ROUTES.upload && r.query.includes(encodeURIComponent(post.publishId)),
      ),
    ).toHaveLength(0);
  });
});
