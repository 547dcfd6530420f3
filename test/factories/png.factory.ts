/** Builds real, decodable RGB PNG files of any size for tests (correct CRCs, zlib-compressed IDAT). */
import { crc32 as zlibCrc32, deflateSync } from 'node:zlib';

export interface MakePngOptions {
  /** Random pixels (incompressible: the file stays near width * height * 3 bytes). Default: a gradient. */
  noise?: boolean;
  /** Seed for the noise generator; the same seed gives the same bytes. Default 1. */
  seed?: number;
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** CRC-32 (ISO 3309 / PNG / zlib). Pass the previous result as `crc` to continue over several buffers. */
export function crc32(buf: Uint8Array, crc = 0): number {
  return zlibCrc32(buf, crc);
}

/** length(4) type(4) data crc32(type + data)(4) */
export function pngChunk(type: string, data: Buffer): Buffer {
  const out = Buffer.alloc(12 + data.length);
  writeChunk(out, 0, type, data);
  return out;
}

/** Writes a chunk into `out` at `offset` (no intermediate copies); returns the offset after it. */
function writeChunk(out: Buffer, offset: number, type: string, data: Buffer): number {
  out.writeUInt32BE(data.length, offset);
  out.write(type, offset + 4, 4, 'latin1');
  data.copy(out, offset + 8);
  const end = offset + 8 + data.length;
  out.writeUInt32BE(crc32(out.subarray(offset + 4, end)), end);
  return end + 4;
}

/** Scanlines with filter byte 0 (None) followed by RGB triples. */
function rawScanlines(width: number, height: number, opts: MakePngOptions): Buffer {
  const stride = 1 + width * 3;
  const raw = Buffer.alloc(stride * height);
  // xorshift32: fast, deterministic, good enough to defeat deflate.
  let state = (opts.seed ?? 1) >>> 0 || 0x9e3779b9;
  for (let y = 0; y < height; y++) {
    const row = y * stride;
    for (let x = 0; x < width; x++) {
      const p = row + 1 + x * 3;
      if (opts.noise) {
        state ^= state << 13;
        state ^= state >>> 17;
        state ^= state << 5;
        raw[p] = state & 0xff;
        raw[p + 1] = (state >>> 8) & 0xff;
        raw[p + 2] = (state >>> 16) & 0xff;
      } else {
        raw[p] = (x * 255) / Math.max(1, width - 1);
        raw[p + 1] = (y * 255) / Math.max(1, height - 1);
        raw[p + 2] = 128;
      }
    }
  }
  return raw;
}

/** A complete 8-bit RGB PNG: signature, IHDR, one IDAT, IEND. */
export function makePng(width: number, height: number, opts: MakePngOptions = {}): Buffer {
  if (!Number.isInteger(width) || !Number.isInteger(height) || width < 1 || height < 1) {
    throw new RangeError('PNG width and height must be positive integers');
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // colour type: truecolour RGB
  ihdr[10] = 0; // compression: deflate
  ihdr[11] = 0; // filter method
  ihdr[12] = 0; // no interlace
  // Noise does not compress: store it (level 0) rather than burn CPU; gradients compress well.
  const idat = deflateSync(rawScanlines(width, height, opts), { level: opts.noise ? 0 : 6 });
  const iend = Buffer.alloc(0);
  const out = Buffer.alloc(PNG_SIGNATURE.length + 12 * 3 + ihdr.length + idat.length);
  let offset = PNG_SIGNATURE.copy(out, 0);
  offset = writeChunk(out, offset, 'IHDR', ihdr);
  offset = writeChunk(out, offset, 'IDAT', idat);
  writeChunk(out, offset, 'IEND', iend);
  return out;
}
