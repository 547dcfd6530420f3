import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { deflateSync } from 'node:zlib';
import { makePng, pngChunk } from '../../test/factories/png.factory';
import { ImageCheckError, PngStructureCheck, checkPixelCount } from './image-check.util';
import { ImageConversionError, convertImage } from './image-convert.util';

/** Runs `bytes` through a PngStructureCheck in pieces of `piece` bytes; resolves to what came out. */
async function walk(bytes: Buffer, piece: number): Promise<Buffer> {
  const pieces: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += piece) pieces.push(bytes.subarray(i, i + piece));
  const out: Buffer[] = [];
  await pipeline(
    Readable.from(pieces),
    new PngStructureCheck(),
    new Writable({
      write(chunk: Buffer, _enc, cb) {
        out.push(chunk);
        cb();
      },
    }),
  );
  return Buffer.concat(out);
}

describe('PngStructureCheck', () => {
  const png = makePng(20, 10);

  it('passes a whole PNG through unchanged, however its bytes are split', async () => {
    for (const piece of [1, 3, 7, 8, 13, 64, png.length]) expect((await walk(png, piece)).equals(png)).toBe(true);
  });

  it('names where a PNG is cut, however its bytes are split', async () => {
    for (const piece of [1, 5, 4096]) {
      await expect(walk(png.subarray(0, 5), piece)).rejects.toThrow(/signature is cut off/);
      await expect(walk(png.subarray(0, 12), piece)).rejects.toThrow(/inside a chunk header/);
      await expect(walk(png.subarray(0, 50), piece)).rejects.toThrow(/inside its IDAT chunk/);
      await expect(walk(png.subarray(0, png.length - 12), piece)).rejects.toThrow(/no IEND chunk/);
      await expect(walk(png.subarray(0, png.length - 2), piece)).rejects.toThrow(/inside its IEND chunk/);
    }
  });

  it('refuses a wrong CRC, a first chunk other than IHDR, a missing IDAT and bytes after IEND', async () => {
    const bad = Buffer.from(png);
    bad[bad.length - 20] ^= 0x01; // inside IDAT
    await expect(walk(bad, 10)).rejects.toThrow(/CRC of its IDAT chunk at byte 33/);
    const head = png.subarray(0, 8);
    const text = pngChunk('tEXt', Buffer.from('a\0b'));
    await expect(walk(Buffer.concat([head, text, png.subarray(8)]), 9)).rejects.toThrow(/first chunk is tEXt/);
    const noIdat = Buffer.concat([png.subarray(0, 33), png.subarray(png.length - 12)]);
    await expect(walk(noIdat, 9)).rejects.toThrow(/no IDAT/);
    await expect(walk(Buffer.concat([png, Buffer.from('x')]), 9)).rejects.toThrow(/after its IEND/);
    await expect(walk(Buffer.from('GIF89a...............'), 9)).rejects.toBeInstanceOf(ImageCheckError);
  });
});

describe('the pixel limit', () => {
  it('refuses a header over the limit, naming the setting', () => {
    expect(() => checkPixelCount({ width: 8000, height: 6250 }, 50_000_000)).not.toThrow();
    expect(() => checkPixelCount({ width: 8000, height: 6251 }, 50_000_000)).toThrow(/MEDIA_MAX_IMAGE_PIXELS/);
  });

  it('stops a conversion of an image over the limit before it is decoded (a decompression bomb made ready earlier)', async () => {
    const side = 16_000;
    const ihdr = Buffer.alloc(13);
    ihdr.writeUInt32BE(side, 0);
    ihdr.writeUInt32BE(side, 4);
    ihdr[8] = 1; // 1-bit grey
    const bomb = Buffer.concat([
      makePng(1, 1).subarray(0, 8),
      pngChunk('IHDR', ihdr),
      pngChunk('IDAT', deflateSync(Buffer.alloc((1 + side / 8) * side), { level: 9 })),
      pngChunk('IEND', Buffer.alloc(0)),
    ]);
    const rss = process.memoryUsage().rss;
    const refused = convertImage(bomb, 'image/jpeg', { maxPixels: 50_000_000 });
    await expect(refused).rejects.toBeInstanceOf(ImageConversionError);
    await expect(refused).rejects.toThrow(/more than the 50000000 pixels.*MEDIA_MAX_IMAGE_PIXELS/);
    expect(process.memoryUsage().rss - rss).toBeLessThan(200 * 1024 * 1024);
    const small = await convertImage(makePng(30, 20), 'image/jpeg', { maxPixels: 600 });
    expect({ width: small.width, height: small.height }).toEqual({ width: 30, height: 20 });
    await expect(convertImage(makePng(30, 21), 'image/jpeg', { maxPixels: 600 })).rejects.toThrow(/600 pixels/);
  });
});
