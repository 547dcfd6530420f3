import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Transform, TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { crc32 } from 'node:zlib';
import type { ImageSize } from './image-size.util';
import { loadSharp } from './sharp-loader';

/** The image is not what it claims to be: truncated, corrupt, or larger than the service decodes. */
export class ImageCheckError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ImageCheckError';
  }
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
/** PNG chunk lengths are at most 2^31 - 1. */
const PNG_MAX_CHUNK = 0x7fffffff;

/**
 * Walks a PNG's chunks as its bytes pass through, without holding them: the signature, every chunk's
 * length and CRC, IHDR first, at least one IDAT, IEND last and nothing after it. libpng (through
 * libvips) does not mind a missing IEND or bytes after it, and only checks what it decodes; this
 * checks the file.
 */
export class PngStructureCheck extends Transform {
  /** Bytes of the current chunk header (8) or CRC (4) collected so far. */
  private pending = Buffer.alloc(0);
  private offset = 0;
  private state: 'signature' | 'header' | 'data' | 'crc' | 'end' = 'signature';
  private type = '';
  private left = 0;
  private crc = 0;
  private chunkStart = 0;
  private chunks = 0;
  private sawIdat = false;

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    try {
      this.consume(chunk);
      callback(null, chunk);
    } catch (err) {
      callback(err as Error);
    }
  }

  override _flush(callback: TransformCallback): void {
    callback(this.state === 'end' ? null : new ImageCheckError(this.truncation()));
  }

  /** What is missing when the bytes end before IEND. */
  private truncation(): string {
    const at = `(it ends at byte ${this.offset})`;
    switch (this.state) {
      case 'signature':
        return `The PNG is truncated: its signature is cut off ${at}`;
      case 'header':
        return this.pending.length === 0
          ? `The PNG is truncated: it has no IEND chunk ${at}`
          : `The PNG is truncated: it ends inside a chunk header ${at}`;
      default:
        return `The PNG is truncated: it ends inside its ${this.type} chunk ${at}`;
    }
  }

  private consume(buf: Buffer): void {
    let i = 0;
    while (i < buf.length) {
      switch (this.state) {
        case 'signature': {
          i = this.collect(buf, i, PNG_SIGNATURE.length);
          if (this.pending.length < PNG_SIGNATURE.length) break;
          if (!this.pending.equals(PNG_SIGNATURE)) throw new ImageCheckError('The PNG signature is wrong');
          this.pending = Buffer.alloc(0);
          this.state = 'header';
          break;
        }
        case 'header': {
          if (this.pending.length === 0) this.chunkStart = this.offset + i;
          i = this.collect(buf, i, 8);
          if (this.pending.length < 8) break;
          const length = this.pending.readUInt32BE(0);
          this.type = this.pending.toString('latin1', 4, 8);
          if (!/^[A-Za-z]{4}$/.test(this.type)) {
            throw new ImageCheckError(`The PNG is corrupt: no valid chunk at byte ${this.chunkStart}`);
          }
          if (length > PNG_MAX_CHUNK) {
            throw new ImageCheckError(`The PNG is corrupt: chunk ${this.type} at byte ${this.chunkStart} is too long`);
          }
          if (this.chunks === 0 && this.type !== 'IHDR') {
            throw new ImageCheckError(`The PNG is corrupt: its first chunk is ${this.type}, not IHDR`);
          }
          if (this.type === 'IDAT') this.sawIdat = true;
          if (this.type === 'IEND' && !this.sawIdat) {
            throw new ImageCheckError('The PNG has no image data: no IDAT chunk before IEND');
          }
          this.crc = crc32(this.pending.subarray(4, 8));
          this.pending = Buffer.alloc(0);
          this.left = length;
          this.state = length > 0 ? 'data' : 'crc';
          break;
        }
        case 'data': {
          const take = Math.min(this.left, buf.length - i);
          this.crc = crc32(buf.subarray(i, i + take), this.crc);
          this.left -= take;
          i += take;
          if (this.left === 0) this.state = 'crc';
          break;
        }
        case 'crc': {
          i = this.collect(buf, i, 4);
          if (this.pending.length < 4) break;
          if (this.pending.readUInt32BE(0) !== this.crc >>> 0) {
            throw new ImageCheckError(
              `The PNG is corrupt: the CRC of its ${this.type} chunk at byte ${this.chunkStart} does not match its data`,
            );
          }
          this.pending = Buffer.alloc(0);
          this.chunks += 1;
          this.state = this.type === 'IEND' ? 'end' : 'header';
          break;
        }
        case 'end':
          throw new ImageCheckError(
            `The PNG has bytes after its IEND chunk (from byte ${this.offset + i}); only the image is accepted`,
          );
      }
    }
    this.offset += buf.length;
  }

  /** Appends bytes from `buf` at `i` to `pending` until it has `size`; returns the new index. */
  private collect(buf: Buffer, i: number, size: number): number {
    const take = Math.min(size - this.pending.length, buf.length - i);
    this.pending = Buffer.concat([this.pending, buf.subarray(i, i + take)]);
    return i + take;
  }
}

/**
 * Copies `source` to a file of its own under the system's temporary directory through `through` (checks
 * that see every byte), runs `work` on its path, and removes it. Decoders read the image from the file:
 * memory holds what they decode, not the file as well (an image may be mostly metadata).
 */
export async function withTemporaryCopy<T>(
  source: Readable,
  through: Transform[],
  work: (path: string) => Promise<T>,
): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'sps-image-'));
  try {
    const path = join(dir, 'image');
    await pipeline([source, ...through, createWriteStream(path)]);
    return await work(path);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The first line of a libvips error, without its `Input file has corrupt header: ` style prefixes. */
function decoderMessage(err: unknown): string {
  return ((err as Error).message ?? String(err)).split('\n')[0].trim();
}

/** Refuses an image (its header's size) of more than `maxPixels`, before anything is decoded. */
export function checkPixelCount(size: ImageSize, maxPixels: number): void {
  const pixels = size.width * size.height;
  if (pixels > maxPixels) {
    throw new ImageCheckError(
      `The image is ${size.width} x ${size.height} pixels (${pixels}), more than the ${maxPixels} ` +
        'this server decodes (MEDIA_MAX_IMAGE_PIXELS)',
    );
  }
}

/**
 * Decodes the image at `path` completely (every pixel of its first frame; the loaders read the whole
 * file to list an animation's frames) and checks it against the size its header gave. Refuses, before
 * any decoding, an image of more than `maxPixels`; libvips' own pixel limit is set to the same.
 */
export async function checkImageFile(path: string, expected: ImageSize, maxPixels: number): Promise<void> {
  checkPixelCount(expected, maxPixels);
  const sharp = await loadSharp();
  const image = sharp(path, { failOn: 'error', limitInputPixels: maxPixels, sequentialRead: true });
  let width: number | undefined;
  let height: number | undefined;
  try {
    const meta = await image.metadata();
    width = meta.width;
    height = meta.pageHeight ?? meta.height;
    // Statistics of every band need every pixel: the whole frame is decoded, row by row.
    await image.stats();
  } catch (err) {
    throw new ImageCheckError(`The image does not decode: ${decoderMessage(err)}`);
  }
  if (width !== expected.width || height !== expected.height) {
    throw new ImageCheckError(
      `The image's header says ${expected.width} x ${expected.height} pixels, but it decodes as ${width} x ${height}`,
    );
  }
}
