/**
 * Video on X, LinkedIn, Mastodon and Bluesky, each against its fake speaking the network's documented
 * video protocol: published after several processing polls (delayed jobs, no worker held), uploaded
 * once (the network's media id is the checkpoint), processing failure -> VIDEO_PROCESSING_FAILED,
 * a network that never finishes -> VIDEO_PROCESSING_TIMEOUT, size/duration refusals at validation,
 * and a HEVC MOV or a WebM converted once to H.264/AAC MP4 for X, the converted bytes reaching it.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BlueskyFake } from '../fakes/bluesky.fake';
import type { FakeVideoProcessing } from '../fakes/fake-video-processing';
import { LinkedInFake } from '../fakes/linkedin.fake';
import { MastodonFake } from '../fakes/mastodon.fake';
import { XFake } from '../fakes/x.fake';
import { videoFixture } from '../factories/video.factory';
import { MediaClient, sha256, tempMediaDir } from '../media/media-support';
import { FAST_PUBLISHING_ENV, waitFor } from '../support/publishing-env';
import { TestApp } from '../support/test-app';

/** The path and query of a URL (the OAuth callback names PUBLIC_BASE_URL). */
const pathOf = (url: string) => {
  const u = new URL(url);
  return `${u.pathname}${u.search}`;
};

interface Network {
  id: 'x' | 'linkedin' | 'mastodon' | 'bluesky';
  videos: () => FakeVideoProcessing;
  /** Posts on the fake whose text contains `text`, with whether they carry a video. */
  posts: (text: string) => Array<{ id: string; video: boolean }>;
}

describe('video on X, LinkedIn, Mastodon and Bluesky', () => {
  const media = tempMediaDir();
  const x = new XFake();
  const linkedin = new LinkedInFake({ videoPartBytes: 32 * 1024 });
  const mastodon = new MastodonFake({ tokens: ['tok'] });
  const bluesky = new BlueskyFake();
  let t: TestApp;
  let key: string;
  const channels = new Map<string, string>();
  /** 4 s H.264/AAC MP4 (LinkedIn takes 3 s at least). */
  let clip: string;

  const networks: Network[] = [
    {
      id: 'x',
      videos: () => x.videos,
      posts: (text) =>
        x.tweets.filter((p) => p.text.includes(text)).map((p) => ({ id: p.id, video: p.mediaIds.length === 1 })),
    },
    {
      id: 'linkedin',
      videos: () => linkedin.videos,
      posts: (text) =>
        linkedin.posts.filter((p) => p.text.includes(text)).map((p) => ({ id: p.id, video: p.video !== null })),
    },
    {
      id: 'mastodon',
      videos: () => mastodon.videos,
      posts: (text) =>
        mastodon.statuses
          .filter((p) => p.text.includes(text))
          .map((p) => ({ id: p.id, video: p.mediaIds.length === 1 })),
    },
    {
      id: 'bluesky',
      videos: () => bluesky.videos,
      posts: (text) =>
        bluesky.posts
          .filter((p) => String(p.record.text).includes(text))
          .map((p) => ({ id: p.uri, video: (p.record.embed as { $type?: string })?.$type === 'app.bsky.embed.video' })),
    },
  ];

  async function upload(name: string, mimeType: string, altText?: string, given?: Buffer): Promise<string> {
    const client = new MediaClient(t, key);
    const bytes = given ?? videoFixture(name);
    const init = await client.initialize({
      filename: name,
      mimeType,
      size: bytes.length,
      sha256: sha256(bytes),
      altText,
    });
    expect(init.status).toBe(201);
    expect((await client.chunk(init.body.id as string, 0, bytes)).status).toBe(200);
    expect((await client.finalize(init.body.id as string)).body.status).toBe('ready');
    return init.body.id as string;
  }

  async function publish(network: string, content: string, mediaIds: string[]): Promise<any> {
    const created = await t.request('POST', '/api/posts', {
      key,
      body: { content, channelIds: [channels.get(network)], mediaIds, publishNow: true },
    });
    expect(created.status).toBe(201);
    return waitFor(
      async () => (await t.request('GET', `/api/posts/${created.body.id}`, { key })).body,
      (p) => p.status === 'published' || p.status === 'failed',
      60_000,
      200,
    );
  }

  /**
   * The app (a database of its own) with VIDEO_PROCESSING_MAX_WAIT_SECONDS set, the four channels connected
   * and the 4 s clip uploaded. LinkedIn, Mastodon and Bluesky give no hint, so their processing is read
   * every 250 ms (the publisher's shortest wait); X says when (check_after_secs), and that is followed.
   */
  async function startApp(maxWaitSeconds: number): Promise<void> {
    channels.clear();
    t = await TestApp.start({
      env: {
        ...FAST_PUBLISHING_ENV,
        MEDIA_DIR: media.dir,
        VIDEO_PROCESSING_MAX_WAIT_SECONDS: String(maxWaitSeconds),
        LINKEDIN_VIDEO_POLL_MS: '250',
        MASTODON_VIDEO_POLL_MS: '250',
        BLUESKY_VIDEO_POLL_MS: '250',
        X_VIDEO_POLL_MS: '250',
        ...x.appEnv(),
        ...linkedin.appEnv(),
        BLUESKY_VIDEO_SERVICE_URL: bluesky.baseUrl,
      },
    });
    key = (await t.createWorkspace('network-video')).key;
    for (const id of ['x', 'linkedin']) {
      const start = await t.request('POST', `/api/channels/connect/${id}`, { key, body: {} });
      expect(start.status).toBe(201);
      const callback = await (id === 'x' ? x : linkedin).consent(start.body.authorizationUrl);
      expect((await t.request('GET', pathOf(callback))).status).toBe(201);
    }
    const connect = async (provider: string, credentials: Record<string, unknown>) => {
      const res = await t.request('POST', '/api/channels', { key, body: { provider, credentials } });
      expect(res.status).toBe(201);
    };
    await connect('mastodon', { instanceUrl: mastodon.baseUrl, accessToken: 'tok' });
    await connect('bluesky', { identifier: 'alice.test', appPassword: 'app-pass', serviceUrl: bluesky.baseUrl });
    const list = await t.request('GET', '/api/channels', { key });
    for (const c of list.body.data as Array<{ id: string; provider: string }>) channels.set(c.provider, c.id);
    clip = await upload('h264-aac-4s.mp4', 'video/mp4', 'A test pattern with a tone');
  }

  beforeAll(async () => {
    await Promise.all([x.start(), linkedin.start(), mastodon.start(), bluesky.start()]);
  });

  afterAll(async () => {
    await t?.close();
    await Promise.all([x.stop(), linkedin.stop(), mastodon.stop(), bluesky.stop()]);
    media.cleanup();
  });

  beforeEach(() => {
    for (const n of networks) n.videos().reset();
  });

  describe('with a processing limit of 12 s', () => {
    beforeAll(() => startApp(12), 120_000);
    afterAll(async () => {
      await t.close();
      t = undefined as unknown as TestApp;
    });

    it('lists limits.video for the four networks on GET /providers and on their channels', async () => {
      const res = await t.request('GET', '/api/providers', { key });
      const byId = new Map((res.body.data as Array<{ id: string; limits: any }>).map((p) => [p.id, p.limits]));
      expect(byId.get('x').video).toMatchObject({
        maxBytes: 512 * 1024 * 1024,
        maxDurationSeconds: 140,
        maxPerPost: 1,
        videoCodecs: ['h264'],
      });
      expect(byId.get('linkedin').video).toMatchObject({
        minDurationSeconds: 3,
        maxDurationSeconds: 1800,
        maxPerPost: 1,
      });
      expect(byId.get('mastodon').video).toMatchObject({
        maxBytes: 99 * 1024 * 1024,
        maxPerPost: 1,
        mixWithImages: false,
      });
      expect(byId.get('bluesky').video).toMatchObject({
        maxBytes: 300_000_000,
        maxDurationSeconds: 180,
        maxPerPost: 1,
      });
      const channel = await t.request('GET', `/api/channels/${channels.get('mastodon')}`, { key });
      // The instance's own limits (the fake's /api/v2/instance says 120 fps).
      expect(channel.body.limits.video).toMatchObject({
        maxFrameRate: 120,
        mimeTypes: ['video/mp4', 'video/quicktime', 'video/webm'],
      });
    });

    it('refuses at validation what a network refuses, naming the limit at the media path', async () => {
      const short = await upload('h264-aac-faststart.mp4', 'video/mp4'); // 2 s
      const res = await t.request('POST', '/api/posts/validate', {
        key,
        body: { content: 'too short', channelIds: [channels.get('linkedin')], mediaIds: [short] },
      });
      expect(res.body.problems).toEqual([
        expect.objectContaining({
          field: 'mediaIds[0]',
          message: expect.stringMatching(/LinkedIn takes at least 3 s/),
        }),
      ]);
      const two = await t.request('POST', '/api/posts/validate', {
        key,
        body: { content: 'two videos', channelIds: [channels.get('bluesky')], mediaIds: [clip, short] },
      });
      expect(two.body.problems).toContainEqual(
        expect.objectContaining({ field: 'mediaIds', message: expect.stringMatching(/at most 1 video per post/) }),
      );
    });

    it('refuses a 240 fps WebM for Mastodon at validation and at creation, naming the instance limit', async () => {
      const fast = await upload('fast-240.webm', 'video/webm', undefined, fastWebm(240));
      expect((await new MediaClient(t, key).get(fast)).body).toMatchObject({ frameRate: 240 });
      const message = `Video ${fast} has 240 frames per second; Mastodon takes at most 120`;
      const checked = await t.request('POST', '/api/posts/validate', {
        key,
        body: { content: 'too fast', channelIds: [channels.get('mastodon')], mediaIds: [fast] },
      });
      expect(checked.body.problems).toEqual([
        expect.objectContaining({
          channelId: channels.get('mastodon'),
          field: 'mediaIds[0]',
          message: expect.stringContaining(message),
        }),
      ]);
      const created = await t.request('POST', '/api/posts', {
        key,
        body: { content: 'too fast', channelIds: [channels.get('mastodon')], mediaIds: [fast], publishNow: true },
      });
      expect(created.status).toBe(400);
      expect(JSON.stringify(created.body)).toContain(message);
      expect(mastodon.videos.uploads).toBe(0);
      // X converts a video above its 60 fps for it (MEDIA_VIDEO_TRANSCODE): no refusal there.
      const forX = await t.request('POST', '/api/posts/validate', {
        key,
        body: { content: 'fast for X', channelIds: [channels.get('x')], mediaIds: [fast] },
      });
      expect(forX.body.problems).toEqual([]);
      // 120 fps is within Mastodon's limit.
      const ok = await upload('fast-120.webm', 'video/webm', undefined, fastWebm(120));
      const fine = await t.request('POST', '/api/posts/validate', {
        key,
        body: { content: 'fast enough', channelIds: [channels.get('mastodon')], mediaIds: [ok] },
      });
      expect(fine.body.problems).toEqual([]);
    }, 60_000);

    describe.each(['x', 'linkedin', 'mastodon', 'bluesky'])('%s', (id) => {
      const network = () => networks.find((n) => n.id === id)!;

      it('publishes a video once the network has processed it over several polls, uploaded once', async () => {
        const videos = network().videos();
        const post = await publish(id, `video ready ${id}`, [clip]);
        expect(post.status).toBe('published');
        const onNetwork = network().posts(`video ready ${id}`);
        expect(onNetwork).toEqual([{ id: post.targets[0].platformPostId, video: true }]);
        expect(videos.uploads).toBe(1);
        // Processing was polled several times (pollsBeforeReady 2, then ready).
        expect(videos.videos[0].polls).toBeGreaterThanOrEqual(3);
        expect(videos.videos[0].probe).toMatchObject({ videoCodec: 'h264', audioCodec: 'aac' });
        expect(videos.videos[0].bytes.equals(videoFixture('h264-aac-4s.mp4'))).toBe(true);
        // The polls are not attempts.
        expect(post.targets[0].attempts).toBe(1);
      });

      it('fails the target with VIDEO_PROCESSING_FAILED, not retried, when the network cannot process it', async () => {
        const videos = network().videos();
        videos.failNextVideo('Unsupported video format');
        const post = await publish(id, `video broken ${id}`, [clip]);
        expect(post.status).toBe('failed');
        expect(post.targets[0]).toMatchObject({
          status: 'failed',
          attempts: 1,
          error: { code: 'VIDEO_PROCESSING_FAILED', message: expect.stringMatching(/Unsupported video format/) },
        });
        expect(videos.uploads).toBe(1);
        expect(network().posts(`video broken ${id}`)).toEqual([]);
      });
    });

    describe('conversion for a network that needs H.264/AAC MP4 (X)', () => {
      it.each([
        ['hevc-rotated.mov', 'video/quicktime', 'hevc'],
        ['vp9-opus.webm', 'video/webm', 'vp9'],
      ])(
        'converts %s once in the background job; X receives H.264/AAC MP4',
        async (name, mimeType, codec) => {
          const id = await upload(name, mimeType);
          const item = await t.request('GET', `/api/media/${id}`, { key });
          expect(item.body.videoCodec).toBe(codec);
          const post = await publish('x', `converted ${name}`, [id]);
          expect(post.status).toBe('published');
          expect(x.videos.uploads).toBe(1);
          expect(x.videos.videos[0].mimeType).toBe('video/mp4');
          expect(x.videos.videos[0].probe).toMatchObject({ videoCodec: 'h264', audioCodec: 'aac' });
          expect(x.videos.videos[0].probe?.container).toMatch(/mp4/);
          // One converted copy, kept with the item.
          const variants = await t.dataSource.query(
            `SELECT variant, mime_type FROM media_variants WHERE media_id = $1 AND variant LIKE 'mp4%'`,
            [id],
          );
          expect(variants).toEqual([{ variant: expect.stringMatching(/^mp4[0-9a-f]{8}$/), mime_type: 'video/mp4' }]);
          // A second post of the same video reuses the copy: no second conversion.
          x.videos.reset();
          const again = await publish('x', `converted again ${name}`, [id]);
          expect(again.status).toBe('published');
          const after = await t.dataSource.query(
            `SELECT count(*)::int AS n FROM media_variants WHERE media_id = $1 AND variant LIKE 'mp4%'`,
            [id],
          );
          expect(after).toEqual([{ n: 1 }]);
        },
        120_000,
      );
    });
  });

  /** A tiny VP8 WebM at `fps` frames per second (160 x 120, half a second of one colour), made by ffmpeg's lavfi. */
  function fastWebm(fps: number): Buffer {
    const dir = mkdtempSync(join(tmpdir(), 'fast-webm-'));
    try {
      const out = join(dir, `fast-${fps}.webm`);
      execFileSync(
        'ffmpeg',
        [
          ...['-hide_banner', '-loglevel', 'error', '-nostdin', '-y'],
          ...['-f', 'lavfi', '-i', `color=c=red:s=160x120:r=${fps}:d=0.5`],
          ...['-c:v', 'libvpx', '-b:v', '50k', '-deadline', 'realtime', '-threads', '1', out],
        ],
        { timeout: 60_000 },
      );
      return readFileSync(out);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  // An app of its own: with a limit of 6 s each case ends in seconds, and there is still room for three
  // polls (X polls when it says, every second here; the others every 250 ms) on a loaded machine.
  describe('with a processing limit of 6 s', () => {
    beforeAll(() => startApp(6), 120_000);

    describe.each(['x', 'linkedin', 'mastodon', 'bluesky'])('%s', (id) => {
      const network = () => networks.find((n) => n.id === id)!;

      it('fails the target with VIDEO_PROCESSING_TIMEOUT when processing outlasts VIDEO_PROCESSING_MAX_WAIT_SECONDS', async () => {
        const videos = network().videos();
        videos.stick();
        const post = await publish(id, `video stuck ${id}`, [clip]);
        expect(post.status).toBe('failed');
        expect(post.targets[0].error).toMatchObject({
          code: 'VIDEO_PROCESSING_TIMEOUT',
          message: expect.stringMatching(/the limit is 6 s/),
        });
        // Polled all along, never uploaded again.
        expect(videos.uploads).toBe(1);
        expect(videos.videos[0].polls).toBeGreaterThanOrEqual(3);
        expect(network().posts(`video stuck ${id}`)).toEqual([]);
      }, 60_000);
    });
  });
});
