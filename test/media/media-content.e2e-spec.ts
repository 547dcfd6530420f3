/**
 * Signed public media URLs (`GET /api/media/{id}/content?expires&signature[&variant]`) on the local disk
 * driver, through real HTTP: signatures, expiry, key rotation, ranges, HEAD, deletion, and converted
 * copies (variants) made for networks that take only some types.
 */
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { makePng } from '../factories/png.factory';
import { MediaService } from '../../src/media/media.service';
import { MediaVariantsService } from '../../src/media/media-variants.service';
import { MediaUrlSigner } from '../../src/media/media-url-signer';
import { MEDIA_STORAGE, MediaStorage } from '../../src/media/storage/media-storage.interface';
import { POST_MEDIA, PostMediaPort } from '../../src/posts/post-media.port';
import { publishMediaOf } from '../../src/posts/publish-media';
import { MediaRejectedError } from '../../src/providers/provider.errors';
import { TestApp, freePort } from '../support/test-app';
import { MediaClient, objectPath, sha256, tempMediaDir } from './media-support';
import { paddedMp4 } from '../factories/video.factory';

const OLD_KEY = 'old-media-url-signing-key-0123456789abcdef';
const NEW_KEY = 'new-media-url-signing-key-0123456789abcdef';
const TTL = 600;

/** Uploads `bytes` in one chunk and finalizes it; returns the ready item's id. */
async function upload(a: MediaClient, bytes: Buffer, filename: string, mimeType: string): Promise<string> {
  const init = await a.initialize({ filename, mimeType, size: bytes.length });
  expect(init.status).toBe(201);
  expect((await a.chunk(init.body.id, 0, bytes)).status).toBe(200);
  const fin = await a.finalize(init.body.id);
  expect(fin.status).toBe(200);
  return init.body.id;
}

/** The path and query of a signed URL, after checking it names this server's public base URL. */
function pathOf(url: string, base: string): string {
  expect(url.startsWith(`${base}/api/media/`)).toBe(true);
  const u = new URL(url);
  return `${u.pathname}${u.search}`;
}

describe('signed media URLs (local disk)', () => {
  const media = tempMediaDir();
  let t: TestApp;
  let a: MediaClient;
  let workspaceId: string;
  let service: MediaService;
  let base: string;
  let png: Buffer;
  let pngId: string;

  const get = (path: string, headers: Record<string, string> = {}) => t.request('GET', path, { headers });
  const getBytes = async (path: string, init: RequestInit = {}) => {
    const res = await fetch(`${t.baseUrl}${path}`, init);
    return { res, bytes: Buffer.from(await res.arrayBuffer()) };
  };

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    png = makePng(48, 32, { noise: true, seed: 7 });
    t = await TestApp.start({
      port,
      env: {
        MEDIA_DIR: media.dir,
        PUBLIC_BASE_URL: `${base}/`,
        MEDIA_URL_SIGNING_KEYS: `${NEW_KEY}, ${OLD_KEY}`,
        MEDIA_URL_TTL_SECONDS: String(TTL),
      },
    });
    service = t.app.get(MediaService);
    const ws = await t.createWorkspace('content-a');
    workspaceId = ws.workspaceId;
    a = new MediaClient(t, ws.key);
    pngId = await upload(a, png, 'noise.png', 'image/png');
  });
  afterAll(async () => {
    await t?.close();
    media.cleanup();
  });

  it('serves the bytes to a valid signed URL without an API key, with type, length, ranges and ETag', async () => {
    const url = service.signedUrl(pngId);
    const q = new URL(url).searchParams;
    expect([...q.keys()]).toEqual(['expires', 'signature']);
    const expires = Number(q.get('expires'));
    expect(expires - Date.now() / 1000).toBeGreaterThan(TTL - 5);
    expect(expires - Date.now() / 1000).toBeLessThanOrEqual(TTL);

    const { res, bytes } = await getBytes(pathOf(url, base));
    expect(res.status).toBe(200);
    expect(bytes.equals(png)).toBe(true);
    expect(res.headers.get('content-type')).toBe('image/png');
    expect(res.headers.get('content-length')).toBe(String(png.length));
    expect(res.headers.get('accept-ranges')).toBe('bytes');
    expect(res.headers.get('etag')).toBe(`"${sha256(png)}"`);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('cache-control')).toMatch(/^private, max-age=\d+$/);
    expect(res.headers.get('x-ratelimit-limit')).toBeNull(); // a public route: no API key, no bucket
  });

  it('answers a single range with 206 and exactly those bytes, a suffix range, and 416 past the end', async () => {
    const path = pathOf(service.signedUrl(pngId), base);
    const mid = await getBytes(path, { headers: { range: 'bytes=10-109' } });
    expect(mid.res.status).toBe(206);
    expect(mid.res.headers.get('content-range')).toBe(`bytes 10-109/${png.length}`);
    expect(mid.res.headers.get('content-length')).toBe('100');
    expect(mid.bytes.equals(png.subarray(10, 110))).toBe(true);

    const suffix = await getBytes(path, { headers: { range: 'bytes=-20' } });
    expect(suffix.res.status).toBe(206);
    expect(suffix.res.headers.get('content-range')).toBe(`bytes ${png.length - 20}-${png.length - 1}/${png.length}`);
    expect(suffix.bytes.equals(png.subarray(png.length - 20))).toBe(true);

    const open = await getBytes(path, { headers: { range: `bytes=${png.length - 5}-` } });
    expect(open.res.status).toBe(206);
    expect(open.bytes.equals(png.subarray(png.length - 5))).toBe(true);

    const past = await get(path, { range: `bytes=${png.length}-` });
    expect(past.status).toBe(416);
    expect(past.headers.get('content-range')).toBe(`bytes */${png.length}`);
    expect(past.body).toEqual({ error: 'RANGE_NOT_SATISFIABLE', message: expect.any(String) });

    // Several ranges are not served as multipart: the whole file, as the RFC allows.
    const many = await getBytes(path, { headers: { range: 'bytes=0-1,5-6' } });
    expect(many.res.status).toBe(200);
    expect(many.bytes.equals(png)).toBe(true);
  });

  it('answers HEAD with the headers alone', async () => {
    const path = pathOf(service.signedUrl(pngId), base);
    const head = await fetch(`${t.baseUrl}${path}`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(String(png.length));
    expect(head.headers.get('content-type')).toBe('image/png');
    expect(head.headers.get('accept-ranges')).toBe('bytes');
    expect((await head.arrayBuffer()).byteLength).toBe(0);
    const ranged = await fetch(`${t.baseUrl}${path}`, { method: 'HEAD', headers: { range: 'bytes=0-9' } });
    expect(ranged.status).toBe(206);
    expect(ranged.headers.get('content-length')).toBe('10');
  });

  it('refuses missing, expired and tampered signatures with 403 in the error shape', async () => {
    const url = new URL(service.signedUrl(pngId));
    const expires = url.searchParams.get('expires')!;
    const signature = url.searchParams.get('signature')!;
    const path = `/api/media/${pngId}/content`;
    const forbidden = async (query: string) => {
      const res = await get(`${path}${query}`);
      expect({ query, status: res.status }).toEqual({ query, status: 403 });
      expect(res.body).toEqual({ error: 'FORBIDDEN', message: expect.any(String) });
      return res.body.message as string;
    };
    expect(await forbidden('')).toMatch(/needs the expires and signature/);
    await forbidden(`?expires=${expires}`);
    await forbidden(`?signature=${signature}`);
    await forbidden(`?expires=${Number(expires) + 1}&signature=${signature}`); // expiry changed
    const flipped = signature[5] === 'A' ? 'B' : 'A';
    await forbidden(`?expires=${expires}&signature=${signature.slice(0, 5)}${flipped}${signature.slice(6)}`);
    await forbidden(`?expires=${expires}&signature=${signature}&variant=jpeg`); // variant added
    await forbidden(`?expires=${expires}&signature=${signature}&signature=${signature}`);
    await forbidden(`?expires=${expires}&signature=${Buffer.from(signature, 'base64url').toString('hex')}`);
    await forbidden(`?expires=abc&signature=${signature}`);
    // Another item's id with this item's signature.
    const other = await upload(a, makePng(4, 4), 'other.png', 'image/png');
    const res = await get(`/api/media/${other}/content?expires=${expires}&signature=${signature}`);
    expect(res.status).toBe(403);
    expect(res.body.error).toBe('FORBIDDEN');

    // Expired: signed by the same key, one second in the past.
    const past = new MediaUrlSigner([NEW_KEY], TTL, () => Date.now() - (TTL + 1) * 1000).sign(pngId);
    expect(await forbidden(`?expires=${past.expires}&signature=${past.signature}`)).toMatch(/expired/);
  });

  it('accepts a URL signed with a key still listed for rotation, refuses one signed with a key that is not', async () => {
    const byOld = new MediaUrlSigner([OLD_KEY], TTL).queryString(pngId);
    expect((await getBytes(`/api/media/${pngId}/content?${byOld}`)).res.status).toBe(200);
    const byStranger = new MediaUrlSigner(['stranger-media-url-signing-key-0123456789'], TTL).queryString(pngId);
    expect((await get(`/api/media/${pngId}/content?${byStranger}`)).status).toBe(403);
    // What the server signs now uses the first key.
    const q = new URL(service.signedUrl(pngId)).searchParams;
    const signedAt = (Number(q.get('expires')) - TTL) * 1000;
    expect(q.get('signature')).toBe(new MediaUrlSigner([NEW_KEY], TTL, () => signedAt).sign(pngId).signature);
  });

  it('answers 400 for an id that is not a UUID and 404 for an unknown one (after the signature)', async () => {
    expect((await get('/api/media/not-a-uuid/content?expires=1&signature=x')).status).toBe(400);
    const unknown = '6f1d2c3b-4a5e-4f60-8a7b-9c0d1e2f3a4b';
    const q = new MediaUrlSigner([NEW_KEY], TTL).queryString(unknown);
    const res = await get(`/api/media/${unknown}/content?${q}`);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'NOT_FOUND', message: 'Media not found' });
  });

  it('answers 404, not 500, when storage lost the bytes of a ready item', async () => {
    const id = await upload(a, makePng(6, 6), 'lost.png', 'image/png');
    rmSync(objectPath(media.dir, id));
    const res = await get(pathOf(service.signedUrl(id), base));
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'NOT_FOUND', message: 'Media not found' });
  });

  it('answers 404 for an item that is not ready yet', async () => {
    const init = await a.initialize({ filename: 'later.png', mimeType: 'image/png', size: png.length });
    const res = await get(pathOf(service.signedUrl(init.body.id), base));
    expect(res.status).toBe(404);
  });

  it('converts a PNG to JPEG once for two concurrent as() calls, serves it signed with its variant, and removes it with the item', async () => {
    const id = await upload(a, png, 'photo.png', 'image/png');
    const port = t.app.get<PostMediaPort>(POST_MEDIA);
    const storage = t.app.get<MediaStorage>(MEDIA_STORAGE);
    const writes = jest.spyOn(storage, 'writeVariant');
    const [item] = await service.findMany(workspaceId, [id]);
    // Two publishes of the same item at once, each with its own view of the media.
    const [jpegA, jpegB] = await Promise.all([
      publishMediaOf(port, item).as('image/jpeg'),
      publishMediaOf(port, item).as('image/jpeg'),
    ]);
    expect(writes).toHaveBeenCalledTimes(1);
    writes.mockRestore();
    const rows = await t.dataSource.query('SELECT * FROM media_variants WHERE media_id = $1', [id]);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ mime_type: 'image/jpeg', width: 48, height: 32 });
    for (const jpeg of [jpegA, jpegB]) {
      expect(jpeg).toMatchObject({ id, mimeType: 'image/jpeg', width: 48, height: 32, filename: 'photo.jpeg' });
      expect(jpeg.size).toBe(Number(rows[0].size));
    }

    // The bytes: a real JPEG of the same dimensions, readable with open() and through the signed URL.
    const chunks: Buffer[] = [];
    for await (const chunk of jpegA.open()) chunks.push(chunk as Buffer);
    const opened = Buffer.concat(chunks);
    expect([...opened.subarray(0, 3)]).toEqual([0xff, 0xd8, 0xff]);
    expect(sha256(opened)).toBe(rows[0].sha256);
    const meta = await sharp(opened).metadata();
    expect({ format: meta.format, width: meta.width, height: meta.height }).toEqual({
      format: 'jpeg',
      width: 48,
      height: 32,
    });
    const url = await jpegA.publicUrl();
    expect(new URL(url).searchParams.get('variant')).toBe('jpeg');
    const served = await getBytes(pathOf(url, base));
    expect(served.res.status).toBe(200);
    expect(served.res.headers.get('content-type')).toBe('image/jpeg');
    expect(served.bytes.equals(opened)).toBe(true);
    // The original's URL still serves the PNG; the same signature without the variant is refused.
    const withoutVariant = new URL(url);
    withoutVariant.searchParams.delete('variant');
    expect((await get(pathOf(withoutVariant.toString(), base))).status).toBe(403);
    // as() of its own type is the same object; the original is still a PNG.
    expect(await jpegA.as('image/jpeg')).toBe(jpegA);
    expect((await jpegA.as('image/png')).mimeType).toBe('image/png');

    // Converting again reads the row: no new bytes.
    const again = jest.spyOn(storage, 'writeVariant');
    await publishMediaOf(port, item).as('image/jpeg');
    expect(again).not.toHaveBeenCalled();
    again.mockRestore();

    // Deleting the item removes the variant's bytes and row; the signed URL is 404 afterwards.
    const variantFile = join(media.dir, 'variants', id.slice(0, 2), id, 'jpeg');
    expect(existsSync(variantFile)).toBe(true);
    expect((await a.delete(id)).status).toBe(204);
    expect(existsSync(variantFile)).toBe(false);
    expect(await t.dataSource.query('SELECT 1 FROM media_variants WHERE media_id = $1', [id])).toHaveLength(0);
    expect((await get(pathOf(url, base))).status).toBe(404);
  });

  it('serializes conversions across processes through Postgres: two at once store the bytes and the row once', async () => {
    const id = await upload(a, png, 'twice.png', 'image/png');
    const variants = t.app.get(MediaVariantsService);
    const storage = t.app.get<MediaStorage>(MEDIA_STORAGE);
    const writes = jest.spyOn(storage, 'writeVariant');
    // Past the in-process de-duplication: as two processes would.
    const convertOnce = (
      variants as unknown as { convertOnce(id: string, type: string): Promise<unknown> }
    ).convertOnce.bind(variants);
    const [x, y] = await Promise.all([convertOnce(id, 'image/webp'), convertOnce(id, 'image/webp')]);
    expect(x).toEqual(y);
    expect(writes).toHaveBeenCalledTimes(1);
    writes.mockRestore();
  });

  it('refuses to convert what it cannot (a type it does not write, a video) with MEDIA_REJECTED', async () => {
    const port = t.app.get<PostMediaPort>(POST_MEDIA);
    const [m] = await service.findMany(workspaceId, [pngId]);
    await expect(publishMediaOf(port, m).as('image/gif')).rejects.toBeInstanceOf(MediaRejectedError);
    const videoId = await upload(a, paddedMp4(64 * 1024), 'clip.mp4', 'video/mp4');
    const [video] = await service.findMany(workspaceId, [videoId]);
    const refused = publishMediaOf(port, video).as('image/jpeg');
    await expect(refused).rejects.toBeInstanceOf(MediaRejectedError);
    await expect(refused).rejects.toThrow(/cannot be converted/);
    expect(
      await t.dataSource.query("SELECT 1 FROM media_variants WHERE media_id = $1 AND variant <> 'poster'", [videoId]),
    ).toHaveLength(0);
  });
});
