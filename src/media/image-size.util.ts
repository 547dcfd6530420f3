/**
 * Image dimensions read from file headers (PNG, GIF, WebP, JPEG) without decoding pixels.
 *
 * Why not the `image-size` package: it covers these four formats, but its `imageSize(buffer)` only
 * answers "size" or throws, for a truncated header and a corrupt one alike, and it picks the format
 * from the bytes. Reading from a stream needs three answers per chunk (size / need more bytes /
 * not an image of the declared type): with `image-size` a corrupt JPEG would be read to the 512 KiB
 * limit instead of refused at its first bad segment, and the declared type would need a separate
 * check; the stream reader below would stay and only the ~90 lines of probes would go. It also reports JPEG EXIF orientation; the API reports stored
 * (pre-rotation) dimensions, as before, so that would not be used.
 */
import type { Readable } from 'node:stream';
import { normalizeMimeType } from './media-type.util';

export interface ImageSize {
  width: number;
  height: number;
}

/** Enough for PNG (24), GIF (10) and every WebP variant (30). */
export const IMAGE_HEAD_BYTES = 64;
/** JPEG puts EXIF/ICC/thumbnail segments before the frame header; give up after this many bytes. */
export const JPEG_SCAN_LIMIT = 512 * 1024;

const IMAGE_SIZE_TYPES: ReadonlySet<string> = new Set(['image/png', 'image/gif', 'image/webp', 'image/jpeg']);

/** `undefined` means "valid so far, need more bytes"; `null` means "not a readable image of that type". */
type Probe = ImageSize | null | undefined;

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function sized(width: number, height: number): ImageSize | null {
  return width > 0 && height > 0 ? { width, height } : null;
}

function hasAscii(buf: Buffer, offset: number, text: string): boolean {
  return buf.toString('latin1', offset, offset + text.length) === text;
}

function probePng(buf: Buffer): Probe {
  if (buf.length < 24) return undefined;
  if (!buf.subarray(0, 8).equals(PNG_SIGNATURE) || !hasAscii(buf, 12, 'IHDR')) return null;
  return sized(buf.readUInt32BE(16), buf.readUInt32BE(20));
}

function probeGif(buf: Buffer): Probe {
  if (buf.length < 10) return undefined;
  if (!hasAscii(buf, 0, 'GIF87a') && !hasAscii(buf, 0, 'GIF89a')) return null;
  return sized(buf.readUInt16LE(6), buf.readUInt16LE(8));
}

function probeWebp(buf: Buffer): Probe {
  if (buf.length < 30) return undefined;
  if (!hasAscii(buf, 0, 'RIFF') || !hasAscii(buf, 8, 'WEBP')) return null;
  const chunk = buf.toString('latin1', 12, 16);
  if (chunk === 'VP8 ') {
    // Key frame: 3-byte frame tag, start code 9D 01 2A, then 14-bit width/height (top 2 bits are scaling).
    const isKeyFrame = (buf[20] & 0x01) === 0;
    if (!isKeyFrame || buf[23] !== 0x9d || buf[24] !== 0x01 || buf[25] !== 0x2a) return null;
    return sized(buf.readUInt16LE(26) & 0x3fff, buf.readUInt16LE(28) & 0x3fff);
  }
  if (chunk === 'VP8L') {
    if (buf[20] !== 0x2f) return null;
    const bits = buf.readUInt32LE(21);
    return sized((bits & 0x3fff) + 1, ((bits >>> 14) & 0x3fff) + 1);
  }
  if (chunk === 'VP8X') {
    return sized(buf.readUIntLE(24, 3) + 1, buf.readUIntLE(27, 3) + 1);
  }
  return null;
}

/** SOF0..SOF15 carry the frame size; C4 (DHT), C8 (JPG) and CC (DAC) share the range but are not frames. */
function isStartOfFrame(marker: number): boolean {
  return marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
}

/** Markers without a length field: TEM, RST0..7, SOI. */
function isStandalone(marker: number): boolean {
  return marker === 0x01 || (marker >= 0xd0 && marker <= 0xd8);
}

function probeJpeg(buf: Buffer): Probe {
  if (buf.length < 3) return undefined;
  if (buf[0] !== 0xff || buf[1] !== 0xd8) return null;
  let i = 2;
  for (;;) {
    // Tolerate junk between segments, then skip 0xFF fill bytes.
    while (i < buf.length && buf[i] !== 0xff) i++;
    while (i < buf.length && buf[i] === 0xff) i++;
    if (i >= buf.length) return undefined;
    const marker = buf[i++];
    if (marker === 0x00 || isStandalone(marker)) continue;
    // End of image, or entropy-coded data starts, before any frame header.
    if (marker === 0xd9 || marker === 0xda) return null;
    if (i + 2 > buf.length) return undefined;
    const length = buf.readUInt16BE(i);
    if (length < 2) return null;
    if (isStartOfFrame(marker)) {
      // length(2) precision(1) height(2) width(2)
      if (i + 7 > buf.length) return undefined;
      return sized(buf.readUInt16BE(i + 5), buf.readUInt16BE(i + 3));
    }
    i += length;
  }
}

function probeImageSize(buf: Buffer, mimeType: string): Probe {
  switch (mimeType) {
    case 'image/png':
      return probePng(buf);
    case 'image/gif':
      return probeGif(buf);
    case 'image/webp':
      return probeWebp(buf);
    case 'image/jpeg':
      return probeJpeg(buf);
    default:
      return null;
  }
}

/**
 * Width and height from the first bytes of an image, or null when the type has no size we read
 * (videos), the header is malformed, or (JPEG) the frame header lies beyond `head`.
 */
export function readImageSize(head: Buffer, mimeType: string): ImageSize | null {
  return probeImageSize(head, normalizeMimeType(mimeType)) ?? null;
}

/** Growable byte buffer so probing after each chunk does not re-concatenate everything read so far. */
class HeadBuffer {
  private bytes = Buffer.alloc(0);
  private used = 0;

  constructor(private readonly limit: number) {}

  get full(): boolean {
    return this.used >= this.limit;
  }

  append(chunk: Buffer): Buffer {
    const take = Math.min(chunk.length, this.limit - this.used);
    if (this.used + take > this.bytes.length) {
      const grown = Buffer.allocUnsafe(Math.min(this.limit, Math.max(this.used + take, this.bytes.length * 2, 4096)));
      this.bytes.copy(grown, 0, 0, this.used);
      this.bytes = grown;
    }
    chunk.copy(this.bytes, this.used, 0, take);
    this.used += take;
    return this.bytes.subarray(0, this.used);
  }
}

function toBuffer(chunk: unknown): Buffer {
  if (Buffer.isBuffer(chunk)) return chunk;
  if (chunk instanceof Uint8Array) return Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  return Buffer.from(String(chunk), 'latin1');
}

/**
 * Like `readImageSize`, but pulls from `stream` only until the size is known or `maxBytes` have been read
 * (default: 512 KiB for JPEG, 64 bytes otherwise), then destroys the stream. Stream errors reject.
 */
export async function readImageSizeFromStream(
  stream: Readable,
  mimeType: string,
  opts: { maxBytes?: number } = {},
): Promise<ImageSize | null> {
  const mime = normalizeMimeType(mimeType);
  const head = new HeadBuffer(opts.maxBytes ?? (mime === 'image/jpeg' ? JPEG_SCAN_LIMIT : IMAGE_HEAD_BYTES));
  try {
    if (!IMAGE_SIZE_TYPES.has(mime)) return null;
    for await (const chunk of stream) {
      const result = probeImageSize(head.append(toBuffer(chunk)), mime);
      if (result !== undefined) return result;
      if (head.full) return null;
    }
    return null;
  } finally {
    stream.destroy();
  }
}
