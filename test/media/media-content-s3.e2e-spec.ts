/**
 * Signed media URLs with MEDIA_STORAGE=s3 against a real S3-compatible server (s3rver from the test setup,
 * or TEST_S3_ENDPOINT): a 302 to a presigned GetObject that works and lives no longer than the signature,
 * variants stored as objects and removed with the item, and MEDIA_URL_S3_REDIRECT=false streaming through.
 */
import { HeadObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { makePng } from '../factories/png.factory';
import { testS3Env } from '../setup/s3-server';
import { mediaConfig } from '../../src/config/media.config';
import { MediaService } from '../../src/media/media.service';
import { createS3Client } from '../../src/media/storage/s3.storage';
import { POST_MEDIA, PostMediaPort } from '../../src/posts/post-media.port';
import { publishMediaOf } from '../../src/posts/publish-media';
import { TestApp } from '../support/test-app';
import { MediaClient, sha256 } from './media-support';

const TTL = 900;

async function upload(a: MediaClient, bytes: Buffer, filename: string): Promise<string> {
  const init = await a.initialize({ filename, mimeType: 'image/png', size: bytes.length });
  expect(init.status).toBe(201);
  expect((await a.chunk(init.body.id, 0, bytes)).status).toBe(200);
  expect((await a.finalize(init.body.id)).status).toBe(200);
  return init.body.id;
}

const pathOf = (url: string) => {
  const u = new URL(url);
  return `${u.pathname}${u.search}`;
};

describe('signed media URLs on S3', () => {
  const png = makePng(64, 40, { noise: true, seed: 21 });

  describe('MEDIA_URL_S3_REDIRECT=true (default): a redirect to a presigned URL', () => {
    let t: TestApp;
    let a: MediaClient;
    let workspaceId: string;
    let s3: S3Client;
    let bucket: string;
    let keyPrefix: string;

    const exists = (key: string) =>
      s3
        .send(new HeadObjectCommand({ Bucket: bucket, Key: key }))
        .then(() => true)
        .catch(() => false);

    beforeAll(async () => {
      t = await TestApp.start({
        env: { ...testS3Env(), S3_KEY_PREFIX: 'signed/', MEDIA_URL_TTL_SECONDS: String(TTL) },
      });
      const cfg = mediaConfig().s3!;
      s3 = createS3Client(cfg);
      bucket = cfg.bucket;
      keyPrefix = cfg.keyPrefix;
      const ws = await t.createWorkspace('s3-content');
      workspaceId = ws.workspaceId;
      a = new MediaClient(t, ws.key);
    });
    afterAll(async () => {
      s3?.destroy();
      await t?.close();
    });

    it('answers 302 to a presigned GetObject, valid no longer than the signature, that serves the bytes as the type', async () => {
      const id = await upload(a, png, 'cover.png');
      const signed = new URL(t.app.get(MediaService).signedUrl(id));
      const res = await fetch(`${t.baseUrl}${pathOf(signed.toString())}`, { redirect: 'manual' });
      expect(res.status).toBe(302);
      const location = new URL(res.headers.get('location')!);
      expect(location.origin).toBe(new URL(testS3Env().S3_ENDPOINT).origin);
      expect(location.pathname).toContain(`signed/${id}`);
      // Counted from when the presigned URL was made (X-Amz-Date), not from now: a second may have
      // turned since.
      const amzDate = location.searchParams
        .get('X-Amz-Date')!
        .replace(/^(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d)Z$/, '$1-$2-$3T$4:$5:$6Z');
      const remaining = Number(signed.searchParams.get('expires')) - Date.parse(amzDate) / 1000;
      const presignedFor = Number(location.searchParams.get('X-Amz-Expires'));
      expect(presignedFor).toBeGreaterThan(0);
      expect(presignedFor).toBeLessThanOrEqual(remaining);
      expect(presignedFor).toBeGreaterThan(TTL - 10);

      const fetched = await fetch(location);
      expect(fetched.status).toBe(200);
      expect(fetched.headers.get('content-type')).toBe('image/png');
      expect(sha256(Buffer.from(await fetched.arrayBuffer()))).toBe(sha256(png));
      // Ranges reach S3 unchanged after the redirect.
      const ranged = await fetch(location, { headers: { range: 'bytes=0-7' } });
      expect(ranged.status).toBe(206);
      expect(Buffer.from(await ranged.arrayBuffer()).equals(png.subarray(0, 8))).toBe(true);

      // A wrong signature is refused before any redirect.
      const tampered = new URL(signed);
      tampered.searchParams.set('expires', String(Number(signed.searchParams.get('expires')) - 1));
      const refused = await t.request('GET', pathOf(tampered.toString()));
      expect(refused.status).toBe(403);
      expect(refused.headers.get('location')).toBeNull();
    });

    it('stores a JPEG variant as its own object, redirects its signed URL to it, and deletes it with the item', async () => {
      const id = await upload(a, png, 'variant.png');
      const [item] = await t.app.get(MediaService).findMany(workspaceId, [id]);
      const jpeg = await publishMediaOf(t.app.get<PostMediaPort>(POST_MEDIA), item).as('image/jpeg');
      expect(jpeg).toMatchObject({ mimeType: 'image/jpeg', width: 64, height: 40 });
      expect(await exists(`${keyPrefix}variants/${id}/jpeg`)).toBe(true);

      const res = await fetch(`${t.baseUrl}${pathOf(await jpeg.publicUrl())}`, { redirect: 'manual' });
      expect(res.status).toBe(302);
      const fetched = await fetch(res.headers.get('location')!);
      expect(fetched.headers.get('content-type')).toBe('image/jpeg');
      const bytes = Buffer.from(await fetched.arrayBuffer());
      expect([...bytes.subarray(0, 3)]).toEqual([0xff, 0xd8, 0xff]);
      expect(bytes.length).toBe(jpeg.size);

      expect((await a.delete(id)).status).toBe(204);
      expect(await exists(`${keyPrefix}variants/${id}/jpeg`)).toBe(false);
      expect(await exists(`${keyPrefix}${id}`)).toBe(false);
      expect((await t.request('GET', pathOf(await jpeg.publicUrl()))).status).toBe(404);
    });
  });

  describe('MEDIA_URL_S3_REDIRECT=false: the service streams the object', () => {
    let t: TestApp;
    let a: MediaClient;

    beforeAll(async () => {
      t = await TestApp.start({ env: { ...testS3Env(), MEDIA_URL_S3_REDIRECT: 'false' } });
      a = new MediaClient(t, (await t.createWorkspace('s3-proxy')).key);
    });
    afterAll(async () => {
      await t?.close();
    });

    it('serves the bytes, ranges and HEAD itself', async () => {
      const id = await upload(a, png, 'proxied.png');
      const path = pathOf(t.app.get(MediaService).signedUrl(id));
      const whole = await fetch(`${t.baseUrl}${path}`, { redirect: 'manual' });
      expect(whole.status).toBe(200);
      expect(whole.headers.get('content-type')).toBe('image/png');
      expect(whole.headers.get('content-length')).toBe(String(png.length));
      expect(Buffer.from(await whole.arrayBuffer()).equals(png)).toBe(true);

      const part = await fetch(`${t.baseUrl}${path}`, { headers: { range: 'bytes=100-199' } });
      expect(part.status).toBe(206);
      expect(part.headers.get('content-range')).toBe(`bytes 100-199/${png.length}`);
      expect(Buffer.from(await part.arrayBuffer()).equals(png.subarray(100, 200))).toBe(true);

      const head = await fetch(`${t.baseUrl}${path}`, { method: 'HEAD' });
      expect(head.status).toBe(200);
      expect(head.headers.get('content-length')).toBe(String(png.length));
    });
  });
});
