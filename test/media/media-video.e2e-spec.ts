/**
 * Videos through the three-step upload: probed at finalize (fields as displayed), a poster kept as the
 * variant `poster`, signed URLs on ready items, refusals of bytes that are not a whole video (422, item
 * `failed`, bytes removed), the video size cap at initialize (413), on local disk and on S3.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { makePng } from '../factories/png.factory';
import { testS3Env } from '../setup/s3-server';
import { TestApp } from '../support/test-app';
import { MediaClient, hasBytes, sha256, tempMediaDir } from './media-support';

const FIXTURES = join(__dirname, '../fixtures/video');
const fixture = (name: string) => readFileSync(join(FIXTURES, name));
const CHUNK = 16 * 1024;

async function upload(a: MediaClient, name: string, mimeType: string, bytes = fixture(name)) {
  const init = await a.initialize({ filename: name, mimeType, size: bytes.length, sha256: sha256(bytes) });
  expect(init.status).toBe(201);
  const { id, chunkSize, totalChunks } = init.body as { id: string; chunkSize: number; totalChunks: number };
  for (let i = 0; i < totalChunks; i++) {
    const res = await a.chunk(id, i, MediaClient.slice(bytes, chunkSize, i));
    expect(res.status).toBeLessThan(300);
  }
  return { id, res: await a.finalize(id) };
}

/** Fetches a signed URL from the test app (its PUBLIC_BASE_URL is not where the test app listens). */
async function fetchBytes(t: TestApp, url: string): Promise<{ status: number; type: string | null; bytes: Buffer }> {
  const u = new URL(url);
  const res = await fetch(`${t.baseUrl}${u.pathname}${u.search}`);
  return { status: res.status, type: res.headers.get('content-type'), bytes: Buffer.from(await res.arrayBuffer()) };
}

describe('video uploads (local disk)', () => {
  const media = tempMediaDir();
  let t: TestApp;
  let a: MediaClient;

  beforeAll(async () => {
    t = await TestApp.start({
      env: { MEDIA_DIR: media.dir, MEDIA_CHUNK_BYTES: String(CHUNK), MEDIA_MAX_VIDEO_BYTES: String(1024 * 1024) },
    });
    a = new MediaClient(t, (await t.createWorkspace('video-media')).key);
  });
  afterAll(async () => {
    await t?.close();
    media.cleanup();
  });

  it('probes an H.264/AAC MP4: size, duration, frame rate, codecs, bitrate; signed content and poster URLs', async () => {
    const bytes = fixture('h264-aac-faststart.mp4');
    const { id, res } = await upload(a, 'clip.mp4', 'video/mp4', bytes);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id,
      status: 'ready',
      mimeType: 'video/mp4',
      width: 320,
      height: 240,
      durationMs: 2000,
      frameRate: 25,
      videoCodec: 'h264',
      audioCodec: 'aac',
      bitrate: Math.round((bytes.length * 8) / 2),
      contentUrl: expect.stringContaining(`/api/media/${id}/content?`),
      posterUrl: expect.stringContaining('variant=poster'),
    });
    const content = await fetchBytes(t, res.body.contentUrl as string);
    expect(content).toMatchObject({ status: 200, type: 'video/mp4' });
    expect(content.bytes.equals(bytes)).toBe(true);
    const poster = await fetchBytes(t, res.body.posterUrl as string);
    expect(poster.status).toBe(200);
    expect(poster.type).toBe('image/jpeg');
    expect(poster.bytes.subarray(0, 3).toString('hex')).toBe('ffd8ff');
    // GET answers the same fields, with fresh URLs.
    const got = await a.get(id);
    expect(got.body).toMatchObject({ durationMs: 2000, videoCodec: 'h264', posterUrl: expect.any(String) });
  });

  it('reports a rotated HEVC QuickTime video as displayed (720 x 1280)', async () => {
    const { res } = await upload(a, 'phone.mov', 'video/quicktime', fixture('hevc-rotated.mov'));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      width: 720,
      height: 1280,
      durationMs: 1000,
      frameRate: 30,
      videoCodec: 'hevc',
      audioCodec: 'aac',
    });
  });

  it('probes WebM (VP9/Opus) and a silent VP8 WebM, whose audio codec is null', async () => {
    const vp9 = await upload(a, 'vp9.webm', 'video/webm', fixture('vp9-opus.webm'));
    expect(vp9.res.body).toMatchObject({ status: 'ready', videoCodec: 'vp9', audioCodec: 'opus', durationMs: 2008 });
    const vp8 = await upload(a, 'vp8.webm', 'video/webm', fixture('vp8-silent.webm'));
    expect(vp8.res.body).toMatchObject({ status: 'ready', videoCodec: 'vp8', audioCodec: null, frameRate: 15 });
  });

  it('probes AV1, a vertical 60 fps short and an MP4 whose index is at the end', async () => {
    const av1 = await upload(a, 'av1.mp4', 'video/mp4', fixture('av1.mp4'));
    expect(av1.res.body).toMatchObject({ videoCodec: 'av1', durationMs: 1000 });
    const short = await upload(a, 'short.mp4', 'video/mp4', fixture('vertical-9x16.mp4'));
    expect(short.res.body).toMatchObject({ width: 288, height: 512, frameRate: 60, durationMs: 2000 });
    const late = await upload(a, 'late.mp4', 'video/mp4', fixture('h264-moov-at-end.mp4'));
    expect(late.res.body).toMatchObject({ status: 'ready', frameRate: 24, durationMs: 2000 });
  });

  it('refuses a truncated MP4 with 422 naming the problem; the item is failed and its bytes removed', async () => {
    const { id, res } = await upload(a, 'cut.mp4', 'video/mp4', fixture('truncated.mp4'));
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ error: 'UNPROCESSABLE_MEDIA', message: expect.stringMatching(/truncated/) });
    const got = await a.get(id);
    expect(got.body).toMatchObject({
      status: 'failed',
      error: { code: 'UNPROCESSABLE_MEDIA' },
      contentUrl: null,
      posterUrl: null,
    });
    expect(hasBytes(media.dir, id)).toBe(false);
  });

  it('refuses an audio-only MP4: it has no video track', async () => {
    const { res } = await upload(a, 'song.mp4', 'video/mp4', fixture('audio-only.mp4'));
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ error: 'UNPROCESSABLE_MEDIA', message: expect.stringMatching(/no video track/) });
  });

  it('refuses bytes of another type than declared (a PNG or a WebM named video/mp4)', async () => {
    for (const name of ['png-named.mp4', 'webm-named.mp4']) {
      const bytes = fixture(name);
      const init = await a.initialize({ filename: name, mimeType: 'video/mp4', size: bytes.length });
      const first = await a.chunk(init.body.id as string, 0, bytes.subarray(0, init.body.chunkSize as number));
      expect(first.status).toBe(415);
      expect(first.body.message).toMatch(/not video\/mp4/);
    }
  });

  it('refuses at initialize a video above MEDIA_MAX_VIDEO_BYTES (413), naming the limit', async () => {
    const res = await a.initialize({ filename: 'big.mp4', mimeType: 'video/mp4', size: 1024 * 1024 + 1 });
    expect(res.status).toBe(413);
    expect(res.body.message).toMatch(/1048576 bytes for videos \(MEDIA_MAX_VIDEO_BYTES\)/);
  });

  it('keeps images without video fields: null duration, codecs and poster, and a content URL', async () => {
    const png = makePng(8, 8);
    const init = await a.initialize({ filename: 'a.png', mimeType: 'image/png', size: png.length });
    await a.chunk(init.body.id as string, 0, png);
    const res = await a.finalize(init.body.id as string);
    expect(res.body).toMatchObject({
      status: 'ready',
      durationMs: null,
      frameRate: null,
      videoCodec: null,
      audioCodec: null,
      bitrate: null,
      posterUrl: null,
      contentUrl: expect.any(String),
    });
  });
});

describe('video uploads on S3 (MEDIA_STORAGE=s3)', () => {
  let t: TestApp;
  let a: MediaClient;

  beforeAll(async () => {
    t = await TestApp.start({ env: { ...testS3Env(), MEDIA_URL_S3_REDIRECT: 'false' } });
    a = new MediaClient(t, (await t.createWorkspace('video-s3')).key);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('probes a video kept on S3 and serves its poster', async () => {
    const { res } = await upload(a, 'clip.webm', 'video/webm', fixture('vp9-opus.webm'));
    expect(res.body).toMatchObject({ status: 'ready', videoCodec: 'vp9', durationMs: 2008 });
    const poster = await fetchBytes(t, res.body.posterUrl as string);
    expect(poster).toMatchObject({ status: 200, type: 'image/jpeg' });
  });

  it('refuses a truncated video kept on S3 (422)', async () => {
    const { res } = await upload(a, 'cut.mp4', 'video/mp4', fixture('truncated.mp4'));
    expect(res.status).toBe(422);
  });
});

// Last: the variables a spec's app sets stay in the process for the apps started after it.
describe('video uploads when ffprobe is missing', () => {
  const media = tempMediaDir();
  let t: TestApp;
  let a: MediaClient;

  beforeAll(async () => {
    t = await TestApp.start({
      env: { MEDIA_DIR: media.dir, FFPROBE_PATH: '/nonexistent/ffprobe', FFMPEG_PATH: '/nonexistent/ffmpeg' },
    });
    a = new MediaClient(t, (await t.createWorkspace('no-ffmpeg')).key);
  });
  afterAll(async () => {
    await t?.close();
    media.cleanup();
  });

  it('starts, answers a video finalize 503 saying what to install, and keeps the item uploading', async () => {
    const { id, res } = await upload(a, 'clip.mp4', 'video/mp4', fixture('h264-aac-faststart.mp4'));
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ error: 'SERVICE_UNAVAILABLE', message: expect.stringMatching(/FFPROBE_PATH/) });
    expect((await a.get(id)).body).toMatchObject({ status: 'uploading' });
  });
});
