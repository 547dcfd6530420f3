/**
 * The three-step HTTP upload with MEDIA_STORAGE=s3 against a real S3-compatible server (s3rver from the test
 * setup, or TEST_S3_ENDPOINT), and a publication that streams the image back out of S3 to a provider.
 */
import { S3Client, HeadObjectCommand } from '@aws-sdk/client-s3';
import { MastodonFake } from '../fakes/mastodon.fake';
import { makePng } from '../factories/png.factory';
import { FAST_PUBLISHING_ENV, waitFor } from '../support/publishing-env';
import { TestApp } from '../support/test-app';
import { testS3Env } from '../setup/s3-server';
import { mediaConfig } from '../../src/config/media.config';
import { createS3Client } from '../../src/media/storage/s3.storage';
import { MediaClient, sha256, withoutSignedUrls } from './media-support';

const MiB = 1024 * 1024;

describe('media upload on S3 (MEDIA_STORAGE=s3)', () => {
  let t: TestApp;
  let a: MediaClient;
  let s3: S3Client;
  let bucket: string;
  let mastodon: MastodonFake;
  let png: Buffer;

  const objectExists = async (id: string): Promise<boolean> =>
    s3
      .send(new HeadObjectCommand({ Bucket: bucket, Key: id }))
      .then(() => true)
      .catch(() => false);

  beforeAll(async () => {
    png = makePng(2000, 2000, { noise: true, seed: 18 });
    mastodon = new MastodonFake({ tokens: ['tok'], mediaPollsBeforeReady: 0 });
    await mastodon.start();
    // A small MEDIA_CHUNK_BYTES: the S3 driver still never asks for chunks under S3's 5 MiB part minimum.
    t = await TestApp.start({ env: { ...FAST_PUBLISHING_ENV, ...testS3Env(), MEDIA_CHUNK_BYTES: '65536' } });
    const cfg = mediaConfig().s3!;
    s3 = createS3Client(cfg);
    bucket = cfg.bucket;
    a = new MediaClient(t, (await t.createWorkspace('s3-media')).key);
  });
  afterAll(async () => {
    s3?.destroy();
    await t?.close();
    await mastodon?.stop();
  });

  let readyId: string;

  it('uploads a 12 MB PNG in 5 MiB chunks out of order, one re-sent, and finalizes it with size, sha256 and dimensions', async () => {
    const init = await a.initialize({
      filename: 'noise.png',
      mimeType: 'image/png',
      size: png.length,
      sha256: sha256(png),
    });
    expect(init.status).toBe(201);
    expect(init.body).toMatchObject({ chunkSize: 5 * MiB, totalChunks: 3 });
    const { id, chunkSize } = init.body;
    const uploadId = async () =>
      (await t.dataSource.query('SELECT multipart_upload_id FROM media WHERE id = $1', [id]))[0].multipart_upload_id;
    expect(await uploadId()).toBeNull(); // the multipart upload starts with the first chunk

    expect((await a.chunk(id, 2, MediaClient.slice(png, chunkSize, 2))).status).toBe(200);
    expect(await uploadId()).toEqual(expect.any(String));
    expect((await a.chunk(id, 1, Buffer.alloc(chunkSize, 7))).status).toBe(200); // wrong bytes, re-sent below
    const [c0, c1] = await Promise.all([
      a.chunk(id, 0, MediaClient.slice(png, chunkSize, 0), { sha256: sha256(MediaClient.slice(png, chunkSize, 0)) }),
      a.chunk(id, 1, MediaClient.slice(png, chunkSize, 1)),
    ]);
    expect([c0.status, c1.status]).toEqual([200, 200]);
    const [etags] = await t.dataSource.query('SELECT part_etags FROM media WHERE id = $1', [id]);
    expect(Object.keys(etags.part_etags).sort()).toEqual(['1', '2', '3']);
    expect(await objectExists(id)).toBe(false);

    const fin = await a.finalize(id);
    expect(fin.status).toBe(200);
    expect(fin.body).toEqual(
      expect.objectContaining({
        id,
        status: 'ready',
        size: png.length,
        sha256: sha256(png),
        width: 2000,
        height: 2000,
      }),
    );
    expect(await objectExists(id)).toBe(true);
    expect(withoutSignedUrls((await a.finalize(id)).body)).toEqual(withoutSignedUrls(fin.body));
    readyId = id;
  });

  it('refuses a chunk of the wrong size or checksum with 400 and keeps accepting the right one', async () => {
    const small = makePng(32, 32);
    const init = await a.initialize({ filename: 's.png', mimeType: 'image/png', size: small.length });
    const { id } = init.body;
    expect((await a.chunk(id, 0, small.subarray(0, -1))).status).toBe(400);
    expect((await a.chunk(id, 0, small, { sha256: sha256(Buffer.from('x')) })).status).toBe(400);
    expect((await a.chunk(id, 0, small)).status).toBe(200);
    expect((await a.finalize(id)).body).toMatchObject({ status: 'ready', width: 32, height: 32 });
  });

  it('fails finalize with 422 when the image does not decode, and removes its bytes', async () => {
    // Chunk 0 passes the sniffer (the PNG signature), but no image header follows: dimensions unreadable.
    const header = makePng(16, 16).subarray(0, 8);
    const bogus = Buffer.concat([header, Buffer.alloc(200, 1)]);
    const init = await a.initialize({ filename: 'b.png', mimeType: 'image/png', size: bogus.length });
    expect((await a.chunk(init.body.id, 0, bogus)).status).toBe(200);
    const fin = await a.finalize(init.body.id);
    expect({ status: fin.status, error: fin.body.error }).toEqual({ status: 422, error: 'UNPROCESSABLE_MEDIA' });
    expect((await a.get(init.body.id)).body.status).toBe('failed');
    expect(await objectExists(init.body.id)).toBe(false);
  });

  it('answers 409 naming missing chunks, and deletes an unfinished upload', async () => {
    const init = await a.initialize({ filename: 'p.png', mimeType: 'image/png', size: 6 * MiB });
    const { id } = init.body;
    expect((await a.chunk(id, 1, Buffer.alloc(MiB, 1))).status).toBe(200);
    const fin = await a.finalize(id);
    expect(fin.status).toBe(409);
    expect(fin.body.message).toContain('missing chunk 0');
    expect((await a.delete(id)).status).toBe(204);
    expect((await a.get(id)).status).toBe(404);
  });

  it('publishes the image by streaming it from S3 to the provider, then deletes it from the bucket', async () => {
    const key = a.key;
    const channel = await t.connectChannel(key, 'mastodon', { instanceUrl: mastodon.baseUrl, accessToken: 'tok' });
    const created = await t.request('POST', '/api/posts', {
      key,
      body: { content: 'from S3', channelIds: [channel], mediaIds: [readyId], publishNow: true },
    });
    expect(created.status).toBe(201);
    const post = await waitFor(
      async () => (await t.request('GET', `/api/posts/${created.body.id}`, { key })).body,
      (p) => p.status !== 'publishing',
    );
    expect(post.status).toBe('published');
    const status = mastodon.statuses.find((s) => s.text === 'from S3')!;
    const uploaded = mastodon.media.find((m) => m.id === status.mediaIds[0])!;
    expect(sha256(uploaded.bytes)).toBe(sha256(png));

    expect((await a.delete(readyId)).status).toBe(204);
    expect(await objectExists(readyId)).toBe(false);
  });
});
