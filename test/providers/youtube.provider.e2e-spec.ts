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
import { YouTubeQuotaExhaustedError } from '../../src/providers/youtube/youtube-quota';
import { youtubePlugin } from '../../src/providers/youtube/youtube.provider';
import { YOUTUBE_ROUTES, YouTubeFake } from '../fakes/youtube.fake';
import { TINY_JPEG, mediaFrom } from './media.fixture';

/** The vertical fixture, repeated to span three chunks of 256 KiB (the fake does not decode it). */
const VIDEO = Buffer.concat(
  Array.from({ length: 9 }, () => readFileSync(join(__dirname, '../fixtures/video/vertical-9x16.mp4'))),
);
const CHUNK = 256 * 1024;

/**
 * YouTube's adapter against the fake: uploads that resume, never twice, quota, processing read once per
 * call (ProcessingPendingError until processed: the publisher polls it later), thumbnails, first comments.
 */
describe('YouTube adapter (against the fake)', () => {
  const fake = new YouTubeFake({ processingPolls: 1 });
  const http = new OutboundHttp({ allowPrivate: true, defaultTimeoutMs: 5000 });
  let adapter: SocialProvider;
  let account: ConnectedAccount;

  const video = () =>
    mediaFrom(VIDEO, { id: 'video-1', mimeType: 'video/mp4', filename: 'v.mp4', width: 360, height: 640 });
  const thumbnail = () => mediaFrom(TINY_JPEG, { id: 'thumb-1', mimeType: 'image/jpeg', filename: 't.jpeg' });

  /** A publication whose checkpoints are kept as the publisher keeps them (per idempotency key). */
  const checkpoints = new Map<string, Record<string, unknown>>();
  const input = (
    key: string,
    overrides: Partial<PublishInput> & { options?: Record<string, unknown> } = {},
  ): PublishInput => ({
    credentials: account.credentials,
    content: `Video ${key}\nA description`,
    media: [video()],
    idempotencyKey: key,
    createdAt: new Date(),
    checkpoint: checkpoints.get(key) ?? null,
    saveCheckpoint: async (state) => void checkpoints.set(key, state),
    options: { madeForKids: false },
    ...overrides,
  });

  /** As the publisher's delayed polls do: publish again with the checkpoint while YouTube processes. */
  const settle = async (key: string, overrides: Parameters<typeof input>[1] = {}, using?: SocialProvider) => {
    for (let polls = 0; ; polls++) {
      try {
        return await (using ?? adapter).publish(input(key, overrides));
      } catch (err) {
        if (!(err instanceof ProcessingPendingError) || polls > 20) throw err;
      }
    }
  };

  beforeAll(async () => {
    const base = await fake.start();
    const env = { ...fake.appEnv(), YOUTUBE_DAILY_UPLOADS: '100' };
    const spec = youtubePlugin.settings!;
    adapter = youtubePlugin.create({
      http,
      settings: settingsOf(spec, readSettings(Object.values(spec), env)),
      resolve: () => {
        throw new Error('unused');
      },
    });
    account = await adapter.connect({ accessToken: fake.issueToken(), apiBaseUrl: base });
  });
  afterAll(async () => {
    await fake.stop();
    http.close();
  });
  beforeEach(() => {
    fake.clearFailures();
    fake.restoreQuota();
  });

  it('uploads in 256 KiB chunks with the options as metadata, sets the thumbnail, then only reads the processing status', async () => {
    const publication = {
      media: [video(), thumbnail()],
      options: {
        title: 'Launch day',
        privacy: 'unlisted',
        madeForKids: true,
        notifySubscribers: false,
        tags: ['launch', 'open source'],
        categoryId: '28',
        short: true,
      },
    };
    const pending = await adapter.publish(input('full', publication)).catch((e: unknown) => e);
    expect(pending).toBeInstanceOf(ProcessingPendingError);
    expect((pending as ProcessingPendingError).checkAfterMs).toBe(20); // YOUTUBE_PROCESSING_POLL_MS of the fake's env
    expect(checkpoints.get('full')).toEqual(
      expect.objectContaining({ videoId: expect.any(String), thumbnailDone: true, offset: expect.any(Number) }),
    );
    const chunks = fake.requests.filter((r) => r.route === YOUTUBE_ROUTES.upload);
    fake.clearRequests();
    const ref = await settle('full', publication);
    expect(fake.requests.map((r) => r.route)).toEqual([YOUTUBE_ROUTES.videos]);
    const stored = fake.videos.find((v) => v.id === ref.platformPostId)!;
    expect(ref.url).toBe(`https://www.youtube.com/shorts/${stored.id}`);
    expect(stored.bytes.equals(VIDEO)).toBe(true);
    expect(stored.snippet).toEqual({
      title: 'Launch day',
      description: 'Video full\nA description',
      tags: ['launch', 'open source'],
      categoryId: '28',
    });
    expect(stored.status).toEqual({ privacyStatus: 'unlisted', selfDeclaredMadeForKids: true });
    expect(stored.notifySubscribers).toBe(false);
    expect(stored.thumbnail).toEqual({ contentType: 'image/jpeg', bytes: TINY_JPEG.length });
    expect(chunks.map((r) => r.headers['content-range'])).toEqual(
      Array.from(
        { length: Math.ceil(VIDEO.length / CHUNK) },
        (_, i) => `bytes ${i * CHUNK}-${Math.min(VIDEO.length, (i + 1) * CHUNK) - 1}/${VIDEO.length}`,
      ),
    );
  });

  it('schedules: uploads private with publishAt', async () => {
    const at = new Date(Date.now() + 86_400_000).toISOString();
    const ref = await settle('scheduled', { options: { madeForKids: false, publishAt: at } });
    expect(fake.videos.find((v) => v.id === ref.platformPostId)!.status).toEqual({
      privacyStatus: 'private',
      selfDeclaredMadeForKids: false,
      publishAt: at,
    });
  });

  it('resumes an interrupted chunk from the bytes the session kept, in the same attempt', async () => {
    const before = fake.videos.length;
    fake.clearRequests();
    fake.interruptNextChunks(1);
    const ref = await settle('interrupted');
    expect(fake.videos).toHaveLength(before + 1);
    expect(fake.videos.find((v) => v.id === ref.platformPostId)!.bytes.equals(VIDEO)).toBe(true);
    // The status query after the interruption: `bytes */total`, answered 308 with the Range kept.
    expect(
      fake.requests.some(
        (r) => r.route === YOUTUBE_ROUTES.upload && r.headers['content-range'] === `bytes */${VIDEO.length}`,
      ),
    ).toBe(true);
  });

  it('after a crash mid-upload, the retry resumes the checkpointed session: one session, one video', async () => {
    const sessions = fake.sessionCount();
    const before = fake.videos.length;
    fake.interruptNextChunks(4); // more than one attempt takes: the attempt ends as a worker crash would
    await expect(adapter.publish(input('crash'))).rejects.toBeInstanceOf(TransientProviderError);
    expect(checkpoints.get('crash')).toEqual(
      expect.objectContaining({ session: expect.stringContaining('upload_id=') }),
    );
    expect(checkpoints.get('crash')).not.toHaveProperty('videoId');
    expect(fake.videos).toHaveLength(before);
    const ref = await settle('crash', { attempt: 2 });
    expect(fake.sessionCount()).toBe(sessions + 1);
    expect(fake.videos).toHaveLength(before + 1);
    expect(fake.videos.at(-1)!.bytes.equals(VIDEO)).toBe(true);
    expect(checkpoints.get('crash')).toEqual(expect.objectContaining({ videoId: ref.platformPostId }));
  });

  it('when the completed upload was not recorded, the retry finds the video through its session', async () => {
    const before = fake.videos.length;
    let crashed = false;
    const key = 'lost-answer';
    await expect(
      adapter.publish(
        input(key, {
          saveCheckpoint: async (state) => {
            if (state.videoId && !crashed) {
              crashed = true;
              throw new Error('worker died');
            }
            checkpoints.set(key, state);
          },
        }),
      ),
    ).rejects.toThrow('worker died');
    expect(checkpoints.get(key)).not.toHaveProperty('videoId');
    const ref = await settle(key, { attempt: 2 });
    expect(fake.videos).toHaveLength(before + 1);
    expect(ref.platformPostId).toBe(fake.videos.at(-1)!.id);
  });

  it('maps quotaExceeded to a typed error that waits for the reset, and refuses the next upload before calling', async () => {
    fake.exhaustQuota();
    const err = await adapter.publish(input('quota-1')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(YouTubeQuotaExhaustedError);
    const quota = err as YouTubeQuotaExhaustedError;
    expect(quota.code).toBe('PROVIDER_RATE_LIMITED');
    expect(quota.message).toMatch(/quota exhausted .*resets at midnight Pacific Time/);
    expect(quota.retryAfterSeconds).toBeGreaterThan(0);
    expect(quota.retryAfterSeconds).toBeLessThanOrEqual(25 * 3600);
    fake.clearRequests();
    await expect(adapter.publish(input('quota-2'))).rejects.toBeInstanceOf(YouTubeQuotaExhaustedError);
    expect(fake.requests.filter((r) => r.route === YOUTUBE_ROUTES.initiate)).toHaveLength(0);
  });

  it('fails a video YouTube cannot process with VideoProcessingFailedError, and never uploads it again', async () => {
    const other = youtubeAdapter();
    fake.failProcessingNext('codec');
    const sessions = fake.sessionCount();
    const err = await settle('failed-processing', {}, other).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(VideoProcessingFailedError);
    expect((err as Error).message).toMatch(/could not process .*codec/);
    await expect(other.publish(input('failed-processing', { attempt: 2 }))).rejects.toThrow(VideoProcessingFailedError);
    expect(fake.sessionCount()).toBe(sessions + 1);
  });

  it('posts a first comment on the video with commentThreads.insert, and finds it again on a retry', async () => {
    const other = youtubeAdapter(); // its own quota ledger: the one above learned of an exhausted quota
    const ref = await settle('commented', {}, other);
    const comment = (attempt: number) =>
      other.comment!({
        credentials: account.credentials,
        content: 'First!  Links in the description',
        post: { ...ref, replyRef: null },
        idempotencyKey: 'commented:1:first-comment',
        attempt,
        createdAt: new Date(),
      });
    const first = await comment(1);
    expect(fake.comments.at(-1)).toEqual({
      id: first.platformPostId,
      videoId: ref.platformPostId,
      authorChannelId: 'UCcontractChannel000000a',
      text: 'First!  Links in the description',
    });
    expect(first.url).toBe(`https://www.youtube.com/watch?v=${ref.platformPostId}&lc=${first.platformPostId}`);
    const count = fake.comments.length;
    // A retry whose first try may have reached YouTube looks for it before posting.
    expect(await comment(2)).toEqual(first);
    expect(fake.comments).toHaveLength(count);
  });

  it('publishes without the thumbnail when YouTube refuses custom thumbnails for the channel', async () => {
    const other = youtubeAdapter();
    fake.refuseThumbnails(1);
    const ref = await settle('no-thumb', { media: [video(), thumbnail()] }, other);
    expect(fake.videos.find((v) => v.id === ref.platformPostId)!.thumbnail).toBeNull();
  });

  it('refuses a publication without madeForKids, naming the option', async () => {
    const other = youtubeAdapter();
    await expect(other.publish(input('no-kids', { options: {} }))).rejects.toThrow(ContentRejectedError);
    await expect(other.publish(input('no-kids', { options: {} }))).rejects.toThrow(/madeForKids/);
  });

  /** A fresh adapter (its own quota ledger) on the same settings. */
  function youtubeAdapter(): SocialProvider {
    const spec = youtubePlugin.settings!;
    return youtubePlugin.create({
      http,
      settings: settingsOf(spec, readSettings(Object.values(spec), fake.appEnv())),
      resolve: () => {
        throw new Error('unused');
      },
    });
  }
  // Last: every call of the file (uploads, thumbnails, comments, reads) as the network describes it.
  it('sent YouTube nothing its discovery document refuses', () => {
    expect(fake.describedBy).toBeDefined();
    expect(fake.descriptionViolations).toEqual([]);
  });
});
