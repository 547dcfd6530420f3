/**
 * A conversion's budget is the publications waiting for it (docs/adr/0050): one ffmpeg per item and
 * variant however often it is asked for (polls, another post, a job delivered twice), kept while a
 * publication still waits, stopped once none does. The ffmpeg here never finishes a transcode
 * (test/fixtures/video/ffmpeg-stuck-conversion.sh): it writes its process id and sleeps.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { VideoVariantsService } from '../../src/media/video-variants.service';
import { XFake } from '../fakes/x.fake';
import { videoFixture } from '../factories/video.factory';
import { FAST_PUBLISHING_ENV, waitFor } from '../support/publishing-env';
import { TestApp } from '../support/test-app';
import { MediaClient, sha256, tempMediaDir } from './media-support';

const pathOf = (url: string) => {
  const u = new URL(url);
  return `${u.pathname}${u.search}`;
};

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe("a video conversion's budget", () => {
  const media = tempMediaDir();
  // The stuck ffmpeg writes there (beside the items it reads).
  const log = join(media.dir, 'conversions.log');
  const x = new XFake();
  let t: TestApp;
  let key: string;
  let channelId: string;

  const conversions = (): number[] =>
    existsSync(log)
      ? readFileSync(log, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => Number(l))
      : [];

  beforeAll(async () => {
    rmSync(log, { force: true });
    await x.start();
    t = await TestApp.start({
      env: {
        ...FAST_PUBLISHING_ENV,
        MEDIA_DIR: media.dir,
        FFMPEG_PATH: join(__dirname, '../fixtures/video/ffmpeg-stuck-conversion.sh'),
        // Short, so each publication gives up within seconds.
        VIDEO_PROCESSING_MAX_WAIT_SECONDS: '8',
        ...x.appEnv(),
      },
    });
    key = (await t.createWorkspace('conversion-budget')).key;
    const start = await t.request('POST', '/api/channels/connect/x', { key, body: {} });
    expect((await t.request('GET', pathOf(await x.consent(start.body.authorizationUrl)))).status).toBe(201);
    channelId = (await t.request('GET', '/api/channels?provider=x', { key })).body.data[0].id;
  });
  afterAll(async () => {
    for (const pid of conversions()) if (alive(pid)) process.kill(pid, 'SIGKILL');
    await t?.close();
    await x.stop();
    rmSync(log, { force: true });
    media.cleanup();
  });

  async function post(content: string, mediaId: string): Promise<string> {
    const created = await t.request('POST', '/api/posts', {
      key,
      body: { content, channelIds: [channelId], mediaIds: [mediaId], publishNow: true },
    });
    expect(created.status).toBe(201);
    return created.body.id as string;
  }

  const settled = (id: string) =>
    waitFor(
      async () => (await t.request('GET', `/api/posts/${id}`, { key })).body,
      (p) => p.status === 'published' || p.status === 'failed',
      60_000,
      200,
    );

  it('runs one ffmpeg for every ask, keeps it while a publication waits, stops it when the last gives up', async () => {
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

    // A WebM for X: converted to H.264/AAC MP4, and this ffmpeg never finishes.
    const first = await post('a webm for X', id);
    const [pid] = await waitFor(
      async () => conversions(),
      (c) => c.length === 1,
      20_000,
      100,
    );
    expect(alive(pid)).toBe(true);

    // Later: another post of the same video, and the job delivered again (a stalled job re-run by
    // another worker, or one queued again after Redis lost it) while the first run holds the conversion.
    await new Promise((r) => setTimeout(r, 3000));
    const second = await post('the same webm again', id);
    const [row] = await waitFor(
      () =>
        t.dataSource.query(
          'SELECT variant, cardinality(waiters)::int AS waiters FROM media_video_conversions WHERE media_id = $1',
          [id],
        ),
      (rows: Array<{ variant: string; waiters: number }>) => rows[0]?.waiters === 2,
      20_000,
      100,
    );
    await t.app
      .get(VideoVariantsService)
      .convert({ mediaId: id, variant: row.variant, conversion: 'transcode', caps: {} });
    expect(conversions()).toEqual([pid]);

    // The first publication gives up; the second still waits, so the conversion goes on.
    const one = await settled(first);
    expect(one.targets[0].error.code).toBe('VIDEO_PROCESSING_TIMEOUT');
    await new Promise((r) => setTimeout(r, 1500));
    expect(alive(pid)).toBe(true);

    // The second gives up too: nobody waits, ffmpeg is stopped, nothing recorded against the file.
    const two = await settled(second);
    expect(two.targets[0].error.code).toBe('VIDEO_PROCESSING_TIMEOUT');
    await waitFor(
      async () => alive(pid),
      (running) => !running,
      5_000,
      100,
    );
    expect(conversions()).toEqual([pid]);
    expect(await t.dataSource.query('SELECT 1 FROM media_video_conversions WHERE media_id = $1', [id])).toEqual([]);
    expect(await t.dataSource.query('SELECT 1 FROM media_conversion_failures WHERE media_id = $1', [id])).toEqual([]);
  }, 90_000);
});
