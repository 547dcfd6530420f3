/**
 * Videos converted for networks: once per item and requirement set, in a background job of the media
 * queue, kept as a variant; a publisher asking meanwhile is told to wait (ProcessingPendingError).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ProcessingPendingError, MediaRejectedError } from '../../src/providers/provider.errors';
import { POST_MEDIA, type PostMediaPort } from '../../src/posts/post-media.port';
import { publishMediaOf } from '../../src/posts/publish-media';
import { VideoToolkit } from '../../src/media/video/video-toolkit.service';
import { videoFixture } from '../factories/video.factory';
import { waitFor } from '../support/publishing-env';
import { TestApp } from '../support/test-app';
import { MediaClient, sha256, tempMediaDir } from './media-support';

const H264_MP4 = {
  label: 'A network',
  mimeTypes: ['video/mp4'],
  videoCodecs: ['h264'],
  audioCodecs: ['aac'],
  faststart: true,
};

describe('video variants for networks', () => {
  const media = tempMediaDir();
  let t: TestApp;
  let a: MediaClient;
  let workspaceId: string;
  let port: PostMediaPort;

  beforeAll(async () => {
    t = await TestApp.start({ env: { MEDIA_DIR: media.dir } });
    const ws = await t.createWorkspace('video-variants');
    workspaceId = ws.workspaceId;
    a = new MediaClient(t, ws.key);
    port = t.app.get<PostMediaPort>(POST_MEDIA);
  });
  afterAll(async () => {
    await t?.close();
    media.cleanup();
  });

  async function upload(name: string, mimeType: string): Promise<string> {
    const bytes = videoFixture(name);
    const init = await a.initialize({ filename: name, mimeType, size: bytes.length, sha256: sha256(bytes) });
    await a.chunk(init.body.id as string, 0, bytes);
    expect((await a.finalize(init.body.id as string)).body.status).toBe('ready');
    return init.body.id as string;
  }

  async function bytesOf(stream: NodeJS.ReadableStream): Promise<Buffer> {
    const chunks: Buffer[] = [];
    for await (const c of stream) chunks.push(c as Buffer);
    return Buffer.concat(chunks);
  }

  it('converts a rotated HEVC MOV to H.264/AAC MP4 once, in a job; a publisher waits meanwhile', async () => {
    const id = await upload('hevc-rotated.mov', 'video/quicktime');
    const [item] = await port.findMany(workspaceId, [id]);
    const publishMedia = publishMediaOf(port, item);
    await expect(publishMedia.asVideo!(H264_MP4)).rejects.toBeInstanceOf(ProcessingPendingError);
    const ready = await waitFor(
      () => port.videoFor(id, H264_MP4),
      (v) => v.state === 'ready',
      60_000,
      250,
    );
    expect(ready).toMatchObject({
      state: 'ready',
      mimeType: 'video/mp4',
      variant: expect.stringMatching(/^mp4[0-9a-f]{8}$/),
    });
    const converted = await publishMedia.asVideo!(H264_MP4);
    expect(converted.mimeType).toBe('video/mp4');
    const out = join(media.dir, 'converted.mp4');
    writeFileSync(out, await bytesOf(converted.open()));
    const probe = await t.app.get(VideoToolkit).probe(out);
    expect(probe).toMatchObject({ videoCodec: 'h264', audioCodec: 'aac', faststart: true, width: 720, height: 1280 });
    // Once: asking again finds the same variant, one row.
    expect(await port.videoFor(id, H264_MP4)).toEqual(ready);
    const rows = await t.dataSource.query(
      `SELECT variant FROM media_variants WHERE media_id = $1 AND variant LIKE 'mp4%'`,
      [id],
    );
    expect(rows).toHaveLength(1);
  });

  it('only moves the index of an H.264 MP4 whose index is at the end (remux); a fitting video is itself', async () => {
    const late = await upload('h264-moov-at-end.mp4', 'video/mp4');
    expect(await port.videoFor(late, H264_MP4)).toMatchObject({ state: 'pending' });
    const ready = await waitFor(
      () => port.videoFor(late, H264_MP4),
      (v) => v.state === 'ready',
      60_000,
      250,
    );
    if (ready.state !== 'ready' || ready.variant === null) throw new Error('expected a variant');
    const remuxed = await bytesOf(port.openVariant(late, ready.variant));
    const original = readFileSync(join(__dirname, '../fixtures/video/h264-moov-at-end.mp4'));
    expect(Math.abs(remuxed.length - original.length)).toBeLessThan(2048); // packets copied, not re-encoded

    const fine = await upload('h264-aac-faststart.mp4', 'video/mp4');
    expect(await port.videoFor(fine, H264_MP4)).toMatchObject({ state: 'ready', variant: null });
  });

  it('refuses what no conversion fixes, stating the limit', async () => {
    const id = await upload('vp9-opus.webm', 'video/webm');
    const [item] = await port.findMany(workspaceId, [id]);
    const refused = publishMediaOf(port, item).asVideo!({ ...H264_MP4, maxDurationSeconds: 1 });
    await expect(refused).rejects.toBeInstanceOf(MediaRejectedError);
    await expect(refused).rejects.toThrow(/1 s/);
  });
});

// Last: the variables a spec's app sets stay in the process for the apps started after it.
describe('video variants with MEDIA_VIDEO_TRANSCODE=false', () => {
  const media = tempMediaDir();
  let t: TestApp;

  beforeAll(async () => {
    t = await TestApp.start({ env: { MEDIA_DIR: media.dir, MEDIA_VIDEO_TRANSCODE: 'false' } });
  });
  afterAll(async () => {
    await t?.close();
    media.cleanup();
  });

  it('converts nothing: a video that needs a conversion is refused, naming what the network takes', async () => {
    const ws = await t.createWorkspace('no-transcode');
    const a = new MediaClient(t, ws.key);
    const bytes = videoFixture('hevc-rotated.mov');
    const init = await a.initialize({ filename: 'a.mov', mimeType: 'video/quicktime', size: bytes.length });
    await a.chunk(init.body.id as string, 0, bytes);
    expect((await a.finalize(init.body.id as string)).body.status).toBe('ready');
    const found = await t.app.get<PostMediaPort>(POST_MEDIA).videoFor(init.body.id as string, H264_MP4);
    expect(found).toMatchObject({
      state: 'refused',
      problems: expect.arrayContaining([expect.stringMatching(/does not convert videos/)]),
    });
  });
});
