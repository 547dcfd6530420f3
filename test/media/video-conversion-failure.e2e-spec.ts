/**
 * A conversion that fails (here: an ffmpeg without the H.264 encoder) fails the target at once with
 * VIDEO_PROCESSING_FAILED naming the reason: the conversion runs once, is recorded, and later
 * publications of the same video fail without queueing it again (no loop until the wait runs out).
 */
import { join } from 'node:path';
import { XFake } from '../fakes/x.fake';
import { videoFixture } from '../factories/video.factory';
import { FAST_PUBLISHING_ENV, waitFor } from '../support/publishing-env';
import { TestApp } from '../support/test-app';
import { MediaClient, sha256, tempMediaDir } from './media-support';

const pathOf = (url: string) => {
  const u = new URL(url);
  return `${u.pathname}${u.search}`;
};

describe('a video conversion that fails', () => {
  const media = tempMediaDir();
  const x = new XFake();
  let t: TestApp;
  let key: string;
  let channelId: string;

  beforeAll(async () => {
    await x.start();
    t = await TestApp.start({
      env: {
        ...FAST_PUBLISHING_ENV,
        MEDIA_DIR: media.dir,
        FFMPEG_PATH: join(__dirname, '../fixtures/video/ffmpeg-without-x264.sh'),
        // Far above what the test waits: a failure must not be this timeout.
        VIDEO_PROCESSING_MAX_WAIT_SECONDS: '600',
        ...x.appEnv(),
      },
    });
    key = (await t.createWorkspace('conversion-failure')).key;
    const start = await t.request('POST', '/api/channels/connect/x', { key, body: {} });
    expect((await t.request('GET', pathOf(await x.consent(start.body.authorizationUrl)))).status).toBe(201);
    channelId = (await t.request('GET', '/api/channels?provider=x', { key })).body.data[0].id;
  });
  afterAll(async () => {
    await t?.close();
    await x.stop();
    media.cleanup();
  });

  async function publish(content: string, mediaId: string): Promise<any> {
    const created = await t.request('POST', '/api/posts', {
      key,
      body: { content, channelIds: [channelId], mediaIds: [mediaId], publishNow: true },
    });
    expect(created.status).toBe(201);
    return waitFor(
      async () => (await t.request('GET', `/api/posts/${created.body.id}`, { key })).body,
      (p) => p.status === 'published' || p.status === 'failed',
      60_000,
      200,
    );
  }

  it('fails the target at once with VIDEO_PROCESSING_FAILED, converting once, never retried', async () => {
    const bytes = videoFixture('vp9-opus.webm');
    const client = new MediaClient(t, key);
    const init = await client.initialize({
      filename: 'clip.webm',
      mimeType: 'video/webm',
      size: bytes.length,
      sha256: sha256(bytes),
    });
    await client.chunk(init.body.id as string, 0, bytes);
    expect((await client.finalize(init.body.id as string)).body.status).toBe('ready');
    const id = init.body.id as string;

    const started = Date.now();
    const post = await publish('a webm for X', id);
    expect(post.status).toBe('failed');
    expect(post.targets[0]).toMatchObject({
      attempts: 1,
      error: {
        code: 'VIDEO_PROCESSING_FAILED',
        message: expect.stringMatching(/for X: the video could not be converted .*WebM.*stopped with exit code 1/s),
      },
    });
    // ffmpeg's own words (here "Unknown encoder 'libx264'", with the server's paths) go to the log only.
    expect(post.targets[0].error.message).not.toMatch(/libx264|ffmpeg|file:|\/tmp\//);
    expect(Date.now() - started).toBeLessThan(60_000);
    expect(x.videoInits).toBe(0);
    const failures = await t.dataSource.query(
      'SELECT variant, reason FROM media_conversion_failures WHERE media_id = $1',
      [id],
    );
    expect(failures).toEqual([{ variant: expect.stringMatching(/^mp4/), reason: 'conversion_failed' }]);

    // Another post of the same video fails at once from the record: no second conversion.
    const again = await publish('the same webm again', id);
    expect(again.targets[0].error.code).toBe('VIDEO_PROCESSING_FAILED');
    const after = await t.dataSource.query(
      'SELECT count(*)::int AS n FROM media_conversion_failures WHERE media_id = $1',
      [id],
    );
    expect(after).toEqual([{ n: 1 }]);
    expect(x.videoInits).toBe(0);
  }, 120_000);
});
