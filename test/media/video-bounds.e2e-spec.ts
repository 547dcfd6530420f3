/**
 * The frame bounds of uploaded videos (VIDEO_MAX_PIXELS, VIDEO_MAX_DIMENSION): a video whose frames
 * are larger is refused at finalize with 422 UNPROCESSABLE_MEDIA and a message stating the bounds,
 * read from the header before any frame is decoded (no poster, no temporary file of hundreds of MB in
 * memory). The large file is generated here: 8192 x 8192 of one colour compresses to a few hundred KB.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TestApp } from '../support/test-app';
import { MediaClient, sha256, tempMediaDir } from './media-support';

/** A one-frame H.264 MP4 of `width` x `height` (solid colour, x264 ultrafast), made by ffmpeg's lavfi. */
function solidMp4(dir: string, width: number, height: number): Buffer {
  const out = join(dir, `solid-${width}x${height}.mp4`);
  execFileSync(
    'ffmpeg',
    [
      ...['-hide_banner', '-loglevel', 'error', '-nostdin', '-y'],
      ...['-f', 'lavfi', '-i', `color=c=0x336699:s=${width}x${height}:r=1:d=1`],
      ...['-frames:v', '1', '-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', '-threads', '1'],
      ...['-movflags', '+faststart', out],
    ],
    { timeout: 60_000 },
  );
  return readFileSync(out);
}

describe('video frame bounds at finalize', () => {
  const media = tempMediaDir();
  const work = mkdtempSync(join(tmpdir(), 'video-bounds-'));
  let t: TestApp;
  let a: MediaClient;
  let huge: Buffer;

  beforeAll(async () => {
    huge = solidMp4(work, 8192, 8192);
    t = await TestApp.start({ env: { MEDIA_DIR: media.dir } });
    a = new MediaClient(t, (await t.createWorkspace('video-bounds')).key);
  }, 90_000);
  afterAll(async () => {
    await t?.close();
    media.cleanup();
    rmSync(work, { recursive: true, force: true });
  });

  async function upload(name: string, bytes: Buffer) {
    const init = await a.initialize({
      filename: name,
      mimeType: 'video/mp4',
      size: bytes.length,
      sha256: sha256(bytes),
    });
    expect(init.status).toBe(201);
    const { id, chunkSize, totalChunks } = init.body as { id: string; chunkSize: number; totalChunks: number };
    for (let i = 0; i < totalChunks; i++) {
      expect((await a.chunk(id, i, MediaClient.slice(bytes, chunkSize, i))).status).toBeLessThan(300);
    }
    return { id, res: await a.finalize(id) };
  }

  it('refuses an 8192 x 8192 MP4 of a few hundred KB with 422, stating the bounds, before taking a poster', async () => {
    expect(huge.length).toBeLessThan(1024 * 1024);
    const started = Date.now();
    const { id, res } = await upload('huge.mp4', huge);
    const took = Date.now() - started;
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      error: 'UNPROCESSABLE_MEDIA',
      message:
        "The video's frames are 8192 x 8192 pixels (67,108,864 per frame); this service takes videos of at most " +
        '9,437,184 pixels per frame and 4,096 pixels a side: scale it down (4K UHD, 3840 x 2160, or less) and upload it again',
    });
    expect(JSON.stringify(res.body)).not.toContain(media.dir);
    // A poster of such a frame took 15-29 s and about 400 MB; the header alone is read now.
    expect(took).toBeLessThan(10_000);
    const item = await a.get(id);
    expect(item.body).toMatchObject({ status: 'failed' });
    expect(await t.dataSource.query('SELECT variant FROM media_variants WHERE media_id = $1', [id])).toEqual([]);
  }, 60_000);

  it('takes a video exactly at the side bound (4096 x 16)', async () => {
    const { res } = await upload('wide.mp4', solidMp4(work, 4096, 16));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'ready', width: 4096, height: 16 });
  }, 60_000);

  it('refuses one pixel a side above the side bound, whatever its pixel count (4098 x 16)', async () => {
    const { res } = await upload('wider.mp4', solidMp4(work, 4098, 16));
    expect(res.status).toBe(422);
    expect(res.body.message).toMatch(/^The video's frames are 4098 x 16 pixels \(65,568 per frame\)/);
  }, 60_000);
});
