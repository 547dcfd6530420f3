import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MediaClient, sha256, tempMediaDir } from '../media/media-support';
import { TestApp } from '../support/test-app';

const FIXTURES = join(__dirname, '../fixtures/video');
const fixture = (name: string) => readFileSync(join(FIXTURES, name));
const CHUNK = 16 * 1024;

/**
 * A video that cannot be read is refused with 422 and a fixed sentence: neither the answer nor the
 * media item's `error` quotes ffprobe's or ffmpeg's raw output, which names the file's path on the
 * server (`file:/srv/data/media/objects/35/<id>: End of file`). The raw output goes to the log.
 */
describe('messages of a video that cannot be read', () => {
  const media = tempMediaDir();
  let t: TestApp;
  let a: MediaClient;

  beforeAll(async () => {
    t = await TestApp.start({
      env: { MEDIA_DIR: media.dir, MEDIA_CHUNK_BYTES: String(CHUNK), MEDIA_MAX_VIDEO_BYTES: String(1024 * 1024) },
    });
    a = new MediaClient(t, (await t.createWorkspace('video-messages')).key);
  });
  afterAll(async () => {
    await t?.close();
    media.cleanup();
  });

  const faststart = fixture('h264-aac-faststart.mp4');
  const moovAtEnd = fixture('h264-moov-at-end.mp4');
  /** Bytes an MP4 starts with (its ftyp box), followed by what no container parser can read. */
  const corrupt = Buffer.concat([faststart.subarray(0, 32), Buffer.alloc(4000, 0x5a)]);
  /** The index's media header box (mdhd) given a version no parser knows: ffprobe fails reading the header. */
  const unknownVersion = Buffer.from(faststart);
  unknownVersion.writeUInt32BE(0x7f000000, faststart.indexOf('mdhd') + 4);
  const cases: Array<[string, Buffer]> = [
    ['whose index holds a box of an unknown version (ffprobe: Not yet implemented)', unknownVersion],
    ['cut inside its index (ffprobe: End of file)', faststart.subarray(0, 2000)],
    ['cut inside its sample tables (ffprobe: Invalid data found)', faststart.subarray(0, 20_000)],
    ['cut in its media data', faststart.subarray(0, Math.floor((faststart.length * 2) / 3))],
    ['cut inside the index at its end', moovAtEnd.subarray(0, moovAtEnd.length - 500)],
    ['an MP4 header followed by garbage', corrupt],
  ];

  /** What a message must never hold: the server's paths, a tool's name, a tool's own words. */
  const expectClean = (text: string, what: string) => {
    for (const leak of [media.dir, '/', 'file:', 'ffprobe', 'ffmpeg', 'End of file', 'Invalid data', '@ 0x']) {
      expect({ what, text, leaks: text.includes(leak) ? leak : null }).toEqual({ what, text, leaks: null });
    }
  };

  it.each(cases)('refuses a video %s with 422 and a message that quotes no tool nor path', async (what, bytes) => {
    const init = await a.initialize({
      filename: 'cut.mp4',
      mimeType: 'video/mp4',
      size: bytes.length,
      sha256: sha256(bytes),
    });
    expect(init.status).toBe(201);
    const { id, chunkSize, totalChunks } = init.body as { id: string; chunkSize: number; totalChunks: number };
    for (let i = 0; i < totalChunks; i++) {
      expect((await a.chunk(id, i, MediaClient.slice(bytes, chunkSize, i))).status).toBe(200);
    }
    const res = await a.finalize(id);
    expect(res.status).toBe(422);
    expect(Object.keys(res.body).sort()).toEqual(['error', 'message']);
    expect(res.body.error).toBe('UNPROCESSABLE_MEDIA');
    expect(res.body.message).toMatch(/^The video /);
    expectClean(res.body.message, `${what}: answer`);

    const got = await a.get(id);
    expect(got.body).toMatchObject({ status: 'failed', error: { code: 'UNPROCESSABLE_MEDIA' } });
    expect(got.text).not.toContain(media.dir);
    expectClean(JSON.stringify(got.body.error), `${what}: item error`);
  });
});
