import { deflateSync } from 'node:zlib';
import sharp from 'sharp';
import { MediaService } from '../../src/media/media.service';
import { makePng, pngChunk } from '../factories/png.factory';
import { FileServer } from '../support/file-server';
import { waitFor } from '../support/publishing-env';
import { TestApp } from '../support/test-app';
import { MediaClient, hasBytes, tempMediaDir } from './media-support';

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** IHDR of an 8-bit PNG (`colourType` 2: RGB, 0: grey) or of a 1-bit grey one. */
function ihdr(width: number, height: number, opts: { bitDepth?: number; colourType?: number } = {}): Buffer {
  const data = Buffer.alloc(13);
  data.writeUInt32BE(width, 0);
  data.writeUInt32BE(height, 4);
  data[8] = opts.bitDepth ?? 8;
  data[9] = opts.colourType ?? 2;
  return pngChunk('IHDR', data);
}

/** The chunks of a valid 64 x 48 PNG: signature, IHDR, IDAT (and its compressed data), IEND. */
function pngParts() {
  const png = makePng(64, 48);
  const ihdrEnd = 8 + 25;
  const idat = png.subarray(ihdrEnd, png.length - 12);
  return { png, ihdrEnd, head: png.subarray(0, ihdrEnd), idat, idatData: idat.subarray(8, idat.length - 4) };
}

/**
 * A decompression bomb: a 16000 x 16000 1-bit grey PNG of zeros, a few tens of KiB on disk and 256
 * million pixels (a gigabyte as RGBA) once decoded.
 */
function pngBomb(): Buffer {
  const side = 16_000;
  const row = Buffer.alloc(1 + side / 8);
  const raw = Buffer.alloc(row.length * side);
  return Buffer.concat([
    PNG_SIGNATURE,
    ihdr(side, side, { bitDepth: 1, colourType: 0 }),
    pngChunk('IDAT', deflateSync(raw, { level: 9 })),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

/** Broken PNGs the attack run saw become `ready`, and what the 422 must name. */
function brokenPngs(): Array<[string, Buffer, RegExp]> {
  const { png, ihdrEnd, head, idat, idatData } = pngParts();
  const iend = png.subarray(png.length - 12);
  const badCrc = Buffer.from(png);
  badCrc.writeUInt32BE(0xdeadbeef, png.length - 12 - 4);
  const flipped = Buffer.from(idatData.map((b, i) => (i > 2 && i % 7 === 0 ? b ^ 0xff : b)));
  const fewRows = deflateSync(Buffer.alloc(10 * (1 + 64 * 3)));
  return [
    ['cut inside its pixel data', png.subarray(0, ihdrEnd + 8 + Math.floor(idatData.length / 2)), /truncated.*IDAT/],
    ['without IEND', Buffer.concat([head, idat]), /truncated.*no IEND/],
    ['with a wrong CRC', badCrc, /CRC of its IDAT chunk/],
    ['with corrupt compressed data', Buffer.concat([head, pngChunk('IDAT', flipped), iend]), /does not decode/],
    ['with too few rows', Buffer.concat([head, pngChunk('IDAT', fewRows), iend]), /does not decode/],
    ['without pixel data', Buffer.concat([head, iend]), /no image data/],
    ['cut after its header', head, /truncated/],
    ['with bytes after IEND', Buffer.concat([png, Buffer.from('<html>hello</html>')]), /after its IEND/],
    [
      'claiming 100000 x 100000 pixels',
      Buffer.concat([PNG_SIGNATURE, ihdr(100_000, 100_000), pngChunk('IDAT', deflateSync(Buffer.alloc(1000))), iend]),
      /100000 x 100000.*MEDIA_MAX_IMAGE_PIXELS/,
    ],
  ];
}

describe('images are decoded at finalize, within a pixel limit', () => {
  const media = tempMediaDir();
  const files = new FileServer();
  let t: TestApp;
  let client: MediaClient;

  /** Initialize, one chunk, finalize. */
  const upload = async (bytes: Buffer, mimeType = 'image/png', filename = 'image.png') => {
    const init = await client.initialize({ filename, mimeType, size: bytes.length });
    expect(init.status).toBe(201);
    expect((await client.chunk(init.body.id, 0, bytes)).status).toBe(200);
    return { id: init.body.id as string, fin: await client.finalize(init.body.id) };
  };

  const expectRefused = async (id: string, fin: { status: number; body: any }, message: RegExp) => {
    expect({ status: fin.status, error: fin.body.error }).toEqual({ status: 422, error: 'UNPROCESSABLE_MEDIA' });
    expect(fin.body.message).toMatch(message);
    const item = (await client.get(id)).body;
    expect(item.status).toBe('failed');
    expect(item.error).toEqual({ code: 'UNPROCESSABLE_MEDIA', message: fin.body.message });
    expect(hasBytes(media.dir, id)).toBe(false);
  };

  beforeAll(async () => {
    await files.start();
    t = await TestApp.start({
      env: {
        MEDIA_DIR: media.dir,
        MEDIA_IMAGE_CONCURRENCY: '1',
        MEDIA_URL_ASYNC_BYTES: '20000',
        MEDIA_URL_SWEEP_SECONDS: '3600',
      },
    });
    client = new MediaClient(t, (await t.createWorkspace('image-checks')).key);
  });
  afterAll(async () => {
    await t?.close();
    await files.stop();
    media.cleanup();
  });

  it.each(brokenPngs())(
    'refuses a PNG %s with 422 naming the problem; the item fails and its bytes go',
    async (_name, bytes, message) => {
      const { id, fin } = await upload(bytes);
      await expectRefused(id, fin, message);
    },
  );

  it('refuses a decompression bomb (16000 x 16000 pixels in a few KiB) at finalize without decoding it', async () => {
    const bomb = pngBomb();
    expect(bomb.length).toBeLessThan(300 * 1024);
    const rssBefore = process.memoryUsage().rss;
    const started = Date.now();
    const { id, fin } = await upload(bomb);
    await expectRefused(id, fin, /16000 x 16000 pixels \(256000000\), more than the 50000000.*MEDIA_MAX_IMAGE_PIXELS/);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(150 * 1024 * 1024);
  });

  it('refuses truncated JPEG, GIF and WebP files, and takes whole ones with their dimensions', async () => {
    const source = makePng(120, 80, { noise: true });
    for (const [type, ext] of [
      ['image/jpeg', 'jpeg'],
      ['image/gif', 'gif'],
      ['image/webp', 'webp'],
    ] as const) {
      const whole = await sharp(source).toFormat(ext).toBuffer();
      const ok = await upload(whole, type, `whole.${ext}`);
      expect(ok.fin.status).toBe(200);
      expect(ok.fin.body).toEqual(expect.objectContaining({ status: 'ready', width: 120, height: 80 }));
      const cut = await upload(whole.subarray(0, Math.floor(whole.length * 0.6)), type, `cut.${ext}`);
      await expectRefused(cut.id, cut.fin, /does not decode/);
    }
    const png = await upload(makePng(33, 17));
    expect(png.fin.body).toEqual(expect.objectContaining({ status: 'ready', width: 33, height: 17 }));
  });

  it('checks uploads from a URL the same way: 422 while the request waits, failed with the reason in the background', async () => {
    const { png, ihdrEnd, idatData } = pngParts();
    const before = (await t.dataSource.query('SELECT count(*)::int AS n FROM media'))[0].n;
    const small = png.subarray(0, ihdrEnd + 8 + Math.floor(idatData.length / 2));
    expect(small.length).toBeLessThan(20_000);
    const now = await t.request('POST', '/api/media/upload/url', {
      key: client.key,
      body: { url: files.put('/cut.png', { type: 'image/png', body: small }) },
    });
    expect({ status: now.status, error: now.body.error }).toEqual({ status: 422, error: 'UNPROCESSABLE_MEDIA' });
    expect(now.body.message).toMatch(/truncated/);
    expect((await t.dataSource.query('SELECT count(*)::int AS n FROM media'))[0].n).toBe(before);

    const big = makePng(100, 100, { noise: true });
    const cut = big.subarray(0, big.length - 100);
    const later = await t.request('POST', '/api/media/upload/url', {
      key: client.key,
      body: { url: files.put('/big-cut.png', { type: 'image/png', body: cut }) },
    });
    expect(later.status).toBe(202);
    const failed = await waitFor(
      async () => (await client.get(later.body.id)).body,
      (m) => m.status !== 'processing',
    );
    expect(failed.status).toBe('failed');
    expect(failed.error).toEqual({ code: 'UNPROCESSABLE_MEDIA', message: expect.stringMatching(/truncated/) });
    expect(hasBytes(media.dir, later.body.id)).toBe(false);
  });

  it('decodes one image at a time with MEDIA_IMAGE_CONCURRENCY=1, finalize checks and conversions alike', async () => {
    const { ImageSlots } = await import('../../src/media/image-slots');
    const slots = t.app.get(ImageSlots);
    let peak = 0;
    let queued = 0;
    const sampler = setInterval(() => {
      peak = Math.max(peak, slots.active);
      queued = Math.max(queued, slots.waiting);
    }, 2);
    try {
      const images = [1, 2, 3, 4].map((seed) => makePng(700, 700, { noise: true, seed }));
      const inits = await Promise.all(
        images.map((bytes) => client.initialize({ filename: 'big.png', mimeType: 'image/png', size: bytes.length })),
      );
      await Promise.all(inits.map((init, i) => client.chunk(init.body.id, 0, images[i])));
      const finals = await Promise.all(inits.map((init) => client.finalize(init.body.id)));
      expect(finals.map((f) => f.body.status)).toEqual(['ready', 'ready', 'ready', 'ready']);
      const service = t.app.get(MediaService);
      const converted = await Promise.all(inits.map((init) => service.convert(init.body.id, 'image/jpeg')));
      expect(converted.map((c) => c.width)).toEqual([700, 700, 700, 700]);
    } finally {
      clearInterval(sampler);
    }
    expect(peak).toBe(1);
    expect(queued).toBeGreaterThan(0);
  });
});
