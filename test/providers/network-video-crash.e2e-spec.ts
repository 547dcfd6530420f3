/**
 * A worker killed while a network processes a video: the upload is done and its id checkpointed, the
 * worker dies during the status poll, and the next worker resumes from the checkpoint. Each network's
 * fake counts the uploads it took: one video, one post.
 */
import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { BlueskyFake } from '../fakes/bluesky.fake';
import type { FakeVideoProcessing } from '../fakes/fake-video-processing';
import { LinkedInFake } from '../fakes/linkedin.fake';
import { MastodonFake } from '../fakes/mastodon.fake';
import { XFake } from '../fakes/x.fake';
import { videoFixture } from '../factories/video.factory';
import { MediaClient, sha256, tempMediaDir } from '../media/media-support';
import { FAST_PUBLISHING_ENV, waitFor } from '../support/publishing-env';
import { compiledEntry } from '../support/service-process';
import { TestApp } from '../support/test-app';

const pathOf = (url: string) => {
  const u = new URL(url);
  return `${u.pathname}${u.search}`;
};

describe('a worker killed while a network processes a video', () => {
  const media = tempMediaDir();
  const x = new XFake();
  const linkedin = new LinkedInFake({ videoPartBytes: 32 * 1024 });
  const mastodon = new MastodonFake({ tokens: ['tok'] });
  const bluesky = new BlueskyFake();
  let t: TestApp;
  let key: string;
  let clip: string;
  let env: Record<string, string>;
  const channels = new Map<string, string>();
  const workers: ChildProcess[] = [];

  function startWorker(): ChildProcess {
    const child = spawn(process.execPath, compiledEntry('main'), {
      cwd: join(__dirname, '..', '..'),
      env: {
        ...process.env,
        ...env,
        APP_ROLE: 'worker',
        DATABASE_URL: t.env.databaseUrl,
        REDIS_PREFIX: t.env.redisPrefix,
        LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    child.stderr?.resume();
    workers.push(child);
    return child;
  }

  beforeAll(async () => {
    await Promise.all([x.start(), linkedin.start(), mastodon.start(), bluesky.start()]);
    env = {
      ...FAST_PUBLISHING_ENV,
      MEDIA_DIR: media.dir,
      VIDEO_PROCESSING_MAX_WAIT_SECONDS: '120',
      // Networks without a hint are read again after 250 ms (X's check_after_secs is followed).
      LINKEDIN_VIDEO_POLL_MS: '250',
      MASTODON_VIDEO_POLL_MS: '250',
      BLUESKY_VIDEO_POLL_MS: '250',
      X_VIDEO_POLL_MS: '250',
      ...x.appEnv(),
      ...linkedin.appEnv(),
      BLUESKY_VIDEO_SERVICE_URL: bluesky.baseUrl,
    };
    t = await TestApp.start({ role: 'api', env });
    key = (await t.createWorkspace('video-crash')).key;
    for (const [id, fake] of [
      ['x', x],
      ['linkedin', linkedin],
    ] as const) {
      const start = await t.request('POST', `/api/channels/connect/${id}`, { key, body: {} });
      expect((await t.request('GET', pathOf(await fake.consent(start.body.authorizationUrl)))).status).toBe(201);
    }
    await t.request('POST', '/api/channels', {
      key,
      body: { provider: 'mastodon', credentials: { instanceUrl: mastodon.baseUrl, accessToken: 'tok' } },
    });
    await t.request('POST', '/api/channels', {
      key,
      body: {
        provider: 'bluesky',
        credentials: { identifier: 'alice.test', appPassword: 'app-pass', serviceUrl: bluesky.baseUrl },
      },
    });
    for (const c of (await t.request('GET', '/api/channels', { key })).body.data) channels.set(c.provider, c.id);
    const bytes = videoFixture('h264-aac-4s.mp4');
    const client = new MediaClient(t, key);
    const init = await client.initialize({
      filename: 'clip.mp4',
      mimeType: 'video/mp4',
      size: bytes.length,
      sha256: sha256(bytes),
    });
    await client.chunk(init.body.id as string, 0, bytes);
    expect((await client.finalize(init.body.id as string)).body.status).toBe('ready');
    clip = init.body.id as string;
    startWorker();
  }, 120_000);

  afterAll(async () => {
    for (const w of workers) w.kill('SIGKILL');
    await t?.close();
    await Promise.all([x.stop(), linkedin.stop(), mastodon.stop(), bluesky.stop()]);
    media.cleanup();
  });

  const cases: Array<[string, () => FakeVideoProcessing, () => number, (text: string) => number]> = [
    ['x', () => x.videos, () => x.videoInits, (s) => x.tweets.filter((p) => p.text === s).length],
    [
      'linkedin',
      () => linkedin.videos,
      () => linkedin.videoInits,
      (s) => linkedin.posts.filter((p) => p.text === s).length,
    ],
    [
      'mastodon',
      () => mastodon.videos,
      () => mastodon.videos.uploads,
      (s) => mastodon.statuses.filter((p) => p.text === s).length,
    ],
    [
      'bluesky',
      () => bluesky.videos,
      () => bluesky.videos.uploads,
      (s) => bluesky.posts.filter((p) => p.record.text === s).length,
    ],
  ];

  it.each(cases)(
    '%s: the next worker resumes from the checkpoint; one upload, one post',
    async (id, videos, uploads, posts) => {
      const hold = videos().holdNextStatus();
      const text = `crash mid-processing ${id}`;
      const created = await t.request('POST', '/api/posts', {
        key,
        body: { content: text, channelIds: [channels.get(id)], mediaIds: [clip], publishNow: true },
      });
      expect(created.status).toBe(201);
      await hold.arrived; // uploaded and checkpointed; the worker waits for the status answer
      expect(uploads()).toBe(1);
      const worker = workers[workers.length - 1];
      worker.kill('SIGKILL');
      await new Promise((r) => worker.once('exit', r));
      hold.release();
      startWorker();
      const post = await waitFor(
        async () => (await t.request('GET', `/api/posts/${created.body.id}`, { key })).body,
        (p) => p.status === 'published' || p.status === 'failed',
        120_000,
        250,
      );
      expect(post.status).toBe('published');
      expect(uploads()).toBe(1);
      expect(videos().uploads).toBe(1);
      expect(posts(text)).toBe(1);
    },
    180_000,
  );
});
