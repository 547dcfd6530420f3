/**
 * A worker killed while YouTube or TikTok processes a video: the publication waits as a checkpoint
 * and a delayed poll, so a fresh worker polls the same video (or publish id) and the post is published
 * once, never uploaded a second time. Real worker processes (APP_ROLE=worker) beside the API under test.
 */
import { ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { TIKTOK_ROUTES, TikTokFake } from '../fakes/tiktok.fake';
import { YOUTUBE_ROUTES, YouTubeFake } from '../fakes/youtube.fake';
import { MediaClient } from '../media/media-support';
import { useOAuthApp } from '../oauth/oauth-harness';
import { FAST_PUBLISHING_ENV, waitFor } from '../support/publishing-env';
import { compiledEntry } from '../support/service-process';
import type { TestApp } from '../support/test-app';

/** A worker process on the API's database, Redis prefix, media directory and network settings. */
function startWorker(t: TestApp): ChildProcess {
  const child = spawn(process.execPath, compiledEntry('main'), {
    cwd: join(__dirname, '..', '..'),
    env: {
      ...process.env,
      ...FAST_PUBLISHING_ENV,
      APP_ROLE: 'worker',
      DATABASE_URL: t.env.databaseUrl,
      REDIS_PREFIX: t.env.redisPrefix,
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  child.stderr?.resume();
  return child;
}

const kill = async (worker: ChildProcess) => {
  worker.kill('SIGKILL');
  if (worker.exitCode === null && worker.signalCode === null) await new Promise((r) => worker.once('exit', r));
};

const uploadVideo = async (t: TestApp, key: string): Promise<string> => {
  const bytes = readFileSync(join(__dirname, '../fixtures/video/vertical-9x16.mp4'));
  const client = new MediaClient(t, key);
  const init = await client.initialize({ filename: 'v.mp4', mimeType: 'video/mp4', size: bytes.length });
  expect((await client.chunk(init.body.id, 0, bytes)).status).toBe(200);
  expect((await client.finalize(init.body.id)).body.status).toBe('ready');
  return init.body.id as string;
};

/** A fresh worker compiles nothing but still boots: slow on a loaded machine. */
const BOOT_MS = 120_000;

describe('a worker killed while YouTube processes the video', () => {
  const yt = new YouTubeFake();
  const h = useOAuthApp('youtube', yt, { role: 'api' });
  const workers: ChildProcess[] = [];
  afterAll(async () => {
    for (const w of workers) await kill(w);
  });

  it('publishes once: a fresh worker polls the checkpointed video and never uploads it again', async () => {
    const channelId = await h.connect();
    const video = await uploadVideo(h.t, h.key);
    yt.holdProcessing();
    workers.push(startWorker(h.t));
    const id = await h.publishNow(channelId, 'Processed after a crash', [video], {
      targets: [{ channelId, options: { madeForKids: false } }],
    });
    // Uploaded, and YouTube answered "processing" at least once: the worker is between polls.
    await waitFor(
      async () => yt.statusReads(),
      (n) => n >= 1,
      BOOT_MS,
      100,
    );
    await kill(workers[0]);
    expect((await h.getPost(id)).status).toBe('publishing');
    yt.releaseProcessing();

    workers.push(startWorker(h.t));
    const post = await h.settled(id, BOOT_MS);
    expect(post.status).toBe('published');
    expect(yt.videos).toHaveLength(1);
    expect(yt.sessionCount()).toBe(1);
    expect(yt.requests.filter((r) => r.route === YOUTUBE_ROUTES.initiate)).toHaveLength(1);
    expect(post.targets[0].platformPostId).toBe(yt.videos[0].id);
    expect(yt.videos[0].bytes.equals(readFileSync(join(__dirname, '../fixtures/video/vertical-9x16.mp4')))).toBe(true);
  }, 300_000);
});

describe('a worker killed while TikTok processes the video', () => {
  const tt = new TikTokFake({ processingPolls: 0 });
  const h = useOAuthApp('tiktok', tt, { role: 'api' });
  const workers: ChildProcess[] = [];
  afterAll(async () => {
    for (const w of workers) await kill(w);
  });

  it('publishes once: a fresh worker reads the status of the same publish id, without a second init', async () => {
    const channelId = await h.connect();
    const video = await uploadVideo(h.t, h.key);
    tt.holdProcessing();
    workers.push(startWorker(h.t));
    const id = await h.publishNow(channelId, 'Published after a crash', [video], {
      targets: [{ channelId, options: { privacyLevel: 'PUBLIC_TO_EVERYONE' } }],
    });
    await waitFor(
      async () => tt.statusReads(),
      (n) => n >= 1,
      BOOT_MS,
      100,
    );
    await kill(workers[0]);
    expect((await h.getPost(id)).status).toBe('publishing');
    tt.releaseProcessing();

    workers.push(startWorker(h.t));
    const post = await h.settled(id, BOOT_MS);
    expect(post.status).toBe('published');
    expect(tt.posts).toHaveLength(1);
    expect(tt.requests.filter((r) => r.route === TIKTOK_ROUTES.init)).toHaveLength(1);
    expect(tt.posts[0].chunksReceived).toBe(tt.posts[0].totalChunkCount);
    expect(post.targets[0].platformPostId).toBe(tt.posts[0].postId);
  }, 300_000);
});
