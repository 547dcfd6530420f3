import { Readable } from 'node:stream';
import * as zlib from 'node:zlib';
import { crc32, makePng } from '../../test/factories/png.factory';
import { JPEG_SCAN_LIMIT, readImageSize, readImageSizeFromStream } from './image-size.util';

function gif(width: number, height: number): Buffer {
  const head = Buffer.alloc(13);
  head.write('GIF89a', 0, 'latin1');
  head.writeUInt16LE(width, 6);
  head.writeUInt16LE(height, 8);
  return Buffer.concat([head, Buffer.from([0x3b])]);
}

function riff(chunkType: string, payload: Buffer): Buffer {
  const chunkHead = Buffer.alloc(8);
  chunkHead.write(chunkType, 0, 'latin1');
  chunkHead.writeUInt32LE(payload.length, 4);
  const head = Buffer.alloc(12);
  head.write('RIFF', 0, 'latin1');
  head.writeUInt32LE(4 + chunkHead.length + payload.length, 4);
  head.write('WEBP', 8, 'latin1');
  return Buffer.concat([head, chunkHead, payload]);
}

function webpLossy(width: number, height: number): Buffer {
  const payload = Buffer.alloc(16);
  payload.writeUIntLE(0x000010, 0, 3); // key frame tag (bit 0 = 0)
  payload.set([0x9d, 0x01, 0x2a], 3);
  payload.writeUInt16LE(width | (1 << 14), 6); // scaling bits must be masked off
  payload.writeUInt16LE(height, 8);
  return riff('VP8 ', payload);
}

function webpLossless(width: number, height: number): Buffer {
  const payload = Buffer.alloc(10);
  payload[0] = 0x2f;
  payload.writeUInt32LE(((width - 1) | ((height - 1) << 14) | (1 << 28)) >>> 0, 1);
  return riff('VP8L', payload);
}

function webpExtended(width: number, height: number): Buffer {
  const payload = Buffer.alloc(10);
  payload[0] = 0x10; // alpha flag
  payload.writeUIntLE(width - 1, 4, 3);
  payload.writeUIntLE(height - 1, 7, 3);
  return riff('VP8X', payload);
}

function segment(marker: number, payload: Buffer): Buffer {
  const head = Buffer.from([0xff, marker, 0, 0]);
  head.writeUInt16BE(payload.length + 2, 2);
  return Buffer.concat([head, payload]);
}

function sof(marker: number, width: number, height: number): Buffer {
  const payload = Buffer.from([8, 0, 0, 0, 0, 3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1]);
  payload.writeUInt16BE(height, 1);
  payload.writeUInt16BE(width, 3);
  return segment(marker, payload);
}

/** SOI, JFIF, optional padding segments, a DHT whose bytes look like a frame header, SOF, SOS, data, EOI. */
function jpeg(width: number, height: number, opts: { sofMarker?: number; paddingBytes?: number } = {}): Buffer {
  const parts = [Buffer.from([0xff, 0xd8]), segment(0xe0, Buffer.from('JFIF\0\x01\x01\0\0\x01\0\x01\0\0', 'latin1'))];
  for (let left = opts.paddingBytes ?? 0; left > 0; left -= 65_000) {
    parts.push(segment(0xe1, Buffer.alloc(Math.min(left, 65_000), 0xab)));
  }
  parts.push(segment(0xc4, Buffer.from([0x00, 0x07, 0x77, 0x07, 0x77, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0])));
  parts.push(sof(opts.sofMarker ?? 0xc0, width, height));
  parts.push(segment(0xda, Buffer.from([1, 1, 0, 0, 0x3f, 0])), Buffer.from([0x12, 0x34, 0xff, 0x00, 0x56]));
  parts.push(Buffer.from([0xff, 0xd9]));
  return Buffer.concat(parts);
}

/** A stream of `data` in small chunks, then (optionally) endless filler; counts what was pulled. */
function trackedStream(data: Buffer, opts: { chunkSize?: number; endless?: boolean } = {}) {
  const chunkSize = opts.chunkSize ?? 1024;
  const tracker = { pulled: 0 };
  function* chunks(): Generator<Buffer> {
    for (let offset = 0; offset < data.length; offset += chunkSize) {
      const chunk = data.subarray(offset, offset + chunkSize);
      tracker.pulled += chunk.length;
      yield chunk;
    }
    while (opts.endless) {
      tracker.pulled += chunkSize;
      yield Buffer.alloc(chunkSize, 0x55);
    }
  }
  return { stream: Readable.from(chunks(), { objectMode: false, highWaterMark: chunkSize }), tracker };
}

/** CRC-32 bit by bit (reflected polynomial 0xEDB88320): an independent check of what the factory wrote. */
function bitwiseCrc32(data: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of data) {
    crc ^= byte;
    for (let k = 0; k < 8; k++) crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}

describe('makePng (test factory)', () => {
  it('produces a valid PNG: signature, IHDR, IDAT, IEND with correct CRC-32s', () => {
    const png = makePng(7, 5, { noise: true, seed: 42 });
    expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    const types: string[] = [];
    let idat: Buffer = Buffer.alloc(0);
    for (let offset = 8; offset < png.length;) {
      const length = png.readUInt32BE(offset);
      const typeAndData = png.subarray(offset + 4, offset + 8 + length);
      const type = typeAndData.toString('latin1', 0, 4);
      const storedCrc = png.readUInt32BE(offset + 8 + length);
      expect(bitwiseCrc32(typeAndData)).toBe(storedCrc);
      if (type === 'IDAT') idat = typeAndData.subarray(4);
      types.push(type);
      offset += 12 + length;
    }
    expect(types).toEqual(['IHDR', 'IDAT', 'IEND']);
    expect(zlib.inflateSync(idat).length).toBe(5 * (1 + 7 * 3));
  });

  it('matches the standard CRC-32 check value, as does the bitwise reference', () => {
    expect(crc32(Buffer.from('123456789'))).toBe(0xcbf43926);
    expect(bitwiseCrc32(Buffer.from('123456789'))).toBe(0xcbf43926);
  });

  it('is deterministic for a seed and differs across seeds', () => {
    expect(makePng(16, 16, { noise: true, seed: 7 })).toEqual(makePng(16, 16, { noise: true, seed: 7 }));
    expect(makePng(16, 16, { noise: true, seed: 7 })).not.toEqual(makePng(16, 16, { noise: true, seed: 8 }));
  });

  it('keeps noise images near width * height * 3 bytes', () => {
    const png = makePng(200, 100, { noise: true });
    expect(png.length).toBeGreaterThan(200 * 100 * 3);
    expect(png.length).toBeLessThan(200 * 100 * 3 * 1.01);
  });
});

describe('readImageSize', () => {
  it('reads PNG IHDR', () => {
    expect(readImageSize(makePng(640, 480).subarray(0, 64), 'image/png')).toEqual({ width: 640, height: 480 });
  });

  it('reads the GIF logical screen', () => {
    expect(readImageSize(gif(320, 200), 'image/gif')).toEqual({ width: 320, height: 200 });
  });

  it.each([
    ['VP8', webpLossy(1023, 77)],
    ['VP8L', webpLossless(1023, 77)],
    ['VP8X', webpExtended(1023, 77)],
  ])('reads WebP %s', (_variant, file) => {
    expect(readImageSize(file, 'image/webp')).toEqual({ width: 1023, height: 77 });
  });

  it('reads large VP8X and VP8L canvases', () => {
    expect(readImageSize(webpExtended(16_383, 9_000), 'image/webp')).toEqual({ width: 16_383, height: 9_000 });
    expect(readImageSize(webpLossless(16_384, 1), 'image/webp')).toEqual({ width: 16_384, height: 1 });
  });

  it.each([
    ['baseline SOF0', 0xc0],
    ['progressive SOF2', 0xc2],
    ['lossless SOF3', 0xc3],
  ])('reads JPEG %s and skips DHT', (_name, marker) => {
    expect(readImageSize(jpeg(1920, 1080, { sofMarker: marker }), 'image/jpeg')).toEqual({
      width: 1920,
      height: 1080,
    });
    expect(readImageSize(jpeg(1920, 1080, { sofMarker: marker }), 'image/jpg')).toEqual({
      width: 1920,
      height: 1080,
    });
  });

  it('returns null when the JPEG frame header is beyond the head', () => {
    const file = jpeg(800, 600, { paddingBytes: 10_000 });
    expect(readImageSize(file.subarray(0, 64), 'image/jpeg')).toBeNull();
    expect(readImageSize(file, 'image/jpeg')).toEqual({ width: 800, height: 600 });
  });

  it('returns null for a JPEG whose scan starts before any frame header', () => {
    const file = Buffer.concat([Buffer.from([0xff, 0xd8]), segment(0xda, Buffer.alloc(6)), Buffer.from([0xff, 0xd9])]);
    expect(readImageSize(file, 'image/jpeg')).toBeNull();
  });

  it('returns null for mismatched, truncated, zero-sized or video input', () => {
    expect(readImageSize(gif(10, 10), 'image/png')).toBeNull();
    expect(readImageSize(makePng(10, 10).subarray(0, 20), 'image/png')).toBeNull();
    expect(readImageSize(gif(0, 10), 'image/gif')).toBeNull();
    expect(readImageSize(makePng(10, 10), 'video/mp4')).toBeNull();
    expect(readImageSize(riff('VP8 ', Buffer.alloc(16)), 'image/webp')).toBeNull();
  });
});

describe('readImageSizeFromStream', () => {
  it('reads a JPEG whose frame header sits after 150 KB of metadata, then stops and destroys the stream', async () => {
    const file = jpeg(4000, 3000, { paddingBytes: 150_000 });
    const { stream, tracker } = trackedStream(file, { endless: true });
    await expect(readImageSizeFromStream(stream, 'image/jpeg')).resolves.toEqual({ width: 4000, height: 3000 });
    expect(stream.destroyed).toBe(true);
    expect(tracker.pulled).toBeLessThan(file.length + 64 * 1024);
  });

  it('gives up on a JPEG after the scan limit without reading the rest', async () => {
    const file = jpeg(10, 10, { paddingBytes: 2 * JPEG_SCAN_LIMIT });
    const { stream, tracker } = trackedStream(file, { chunkSize: 16 * 1024 });
    await expect(readImageSizeFromStream(stream, 'image/jpeg')).resolves.toBeNull();
    expect(stream.destroyed).toBe(true);
    expect(tracker.pulled).toBeLessThan(JPEG_SCAN_LIMIT + 64 * 1024);
  });

  it('honours a custom maxBytes', async () => {
    const { stream } = trackedStream(jpeg(10, 10, { paddingBytes: 10_000 }));
    await expect(readImageSizeFromStream(stream, 'image/jpeg', { maxBytes: 4096 })).resolves.toBeNull();
  });

  it('reads a PNG from its first bytes only', async () => {
    const file = makePng(300, 200, { noise: true });
    const { stream, tracker } = trackedStream(file, { chunkSize: 7 });
    await expect(readImageSizeFromStream(stream, 'image/png')).resolves.toEqual({ width: 300, height: 200 });
    expect(stream.destroyed).toBe(true);
    expect(tracker.pulled).toBeLessThan(1024);
  });

  it('reads GIF and WebP from streams', async () => {
    await expect(readImageSizeFromStream(trackedStream(gif(5, 6)).stream, 'image/gif')).resolves.toEqual({
      width: 5,
      height: 6,
    });
    await expect(readImageSizeFromStream(trackedStream(webpExtended(9, 8)).stream, 'image/webp')).resolves.toEqual({
      width: 9,
      height: 8,
    });
  });

  it('returns null for a stream that ends early or a video type', async () => {
    const truncated = trackedStream(jpeg(10, 10).subarray(0, 30)).stream;
    await expect(readImageSizeFromStream(truncated, 'image/jpeg')).resolves.toBeNull();
    const video = trackedStream(Buffer.alloc(100)).stream;
    await expect(readImageSizeFromStream(video, 'video/mp4')).resolves.toBeNull();
    expect(video.destroyed).toBe(true);
  });

  it('rejects when the stream fails', async () => {
    const failing = new Readable({
      read() {
        this.destroy(new Error('disk on fire'));
      },
    });
    await expect(readImageSizeFromStream(failing, 'image/jpeg')).rejects.toThrow('disk on fire');
  });
});
