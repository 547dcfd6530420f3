/**
 * The order and sizes of the top-level boxes of an MP4/MOV file (ISO base media: `ftyp`, `moov`,
 * `mdat`, ...). ffprobe reads the media; it does not say whether the index (`moov`) comes before the
 * media data (`mdat`), which progressive download needs, nor notice that a file whose index came
 * first was cut inside its media data. Both follow from the box headers alone: 8 or 16 bytes per box,
 * never the boxes' contents.
 */
import { open } from 'node:fs/promises';

export interface BoxLayout {
  /** Offset of the first top-level `moov`, or null when there is none. */
  moovAt: number | null;
  /** Offset of the first top-level `mdat`, or null when there is none. */
  mdatAt: number | null;
  /** True when the index comes before the media data (or there is no media data box). */
  faststart: boolean;
  /** The first box that runs past the end of the file, if any. */
  truncated: { type: string; at: number; declaredEnd: number; fileEnd: number } | null;
  /** A box header that cannot be right (size below 8); the rest of the file was not walked. */
  malformedAt: number | null;
  boxes: number;
}

/** Top-level boxes walked at most; fragmented files have two per fragment, far fewer than this. */
const MAX_BOXES = 1_000_000;

interface Header {
  type: string;
  /** Bytes of the whole box, or null for "to the end of the file" (size 0). */
  size: number | null;
  headerBytes: number;
}

/** Reads a box header from `buf` (at least 8 bytes; 16 when the size is 64-bit), or null if it needs more. */
function readHeader(buf: Buffer): Header | 'short' {
  if (buf.length < 8) return 'short';
  const size32 = buf.readUInt32BE(0);
  const type = buf.toString('latin1', 4, 8);
  if (size32 === 1) {
    if (buf.length < 16) return 'short';
    return { type, size: Number(buf.readBigUInt64BE(8)), headerBytes: 16 };
  }
  return { type, size: size32 === 0 ? null : size32, headerBytes: 8 };
}

class LayoutBuilder {
  readonly layout: BoxLayout = {
    moovAt: null,
    mdatAt: null,
    faststart: true,
    truncated: null,
    malformedAt: null,
    boxes: 0,
  };
  lastType = '';
  lastAt = 0;

  /** Records a header at `at`; returns the offset of the next box, or null to stop walking. */
  add(at: number, header: Header, fileEnd: number | null): number | null {
    const l = this.layout;
    l.boxes++;
    this.lastType = header.type;
    this.lastAt = at;
    if (header.type === 'moov' && l.moovAt === null) l.moovAt = at;
    if (header.type === 'mdat' && l.mdatAt === null) l.mdatAt = at;
    if (header.size === null) return null;
    if (header.size < header.headerBytes) {
      l.malformedAt = at;
      return null;
    }
    const end = at + header.size;
    if (fileEnd !== null && end > fileEnd) {
      l.truncated = { type: header.type, at, declaredEnd: end, fileEnd };
      return null;
    }
    return l.boxes >= MAX_BOXES ? null : end;
  }

  finish(): BoxLayout {
    const l = this.layout;
    l.faststart = l.mdatAt === null || (l.moovAt !== null && l.moovAt < l.mdatAt);
    return l;
  }
}

/** Walks the top-level boxes of a file, reading only their headers. */
export async function readBoxLayout(path: string): Promise<BoxLayout> {
  const handle = await open(path, 'r');
  try {
    const { size: fileEnd } = await handle.stat();
    const builder = new LayoutBuilder();
    const buf = Buffer.alloc(16);
    let at: number | null = 0;
    while (at !== null && at < fileEnd) {
      const { bytesRead } = await handle.read(buf, 0, 16, at);
      const header = readHeader(buf.subarray(0, bytesRead));
      if (header === 'short') {
        builder.layout.truncated = { type: '', at, declaredEnd: at + 8, fileEnd };
        break;
      }
      at = builder.add(at, header, fileEnd);
    }
    return builder.finish();
  } finally {
    await handle.close();
  }
}

/**
 * The same walk over bytes that stream past (an upload, an object read from S3): feed every chunk to
 * `push`, then call `finish` with nothing more to come. Holds at most one box header.
 */
export class BoxLayoutScanner {
  private readonly builder = new LayoutBuilder();
  private position = 0;
  /** Offset of the next box header, or null once the walk stopped. */
  private nextAt: number | null = 0;
  private pending = Buffer.alloc(0);

  push(chunk: Buffer): void {
    const chunkStart = this.position;
    this.position += chunk.length;
    while (this.nextAt !== null && this.nextAt < this.position) {
      const from = Math.max(this.nextAt - chunkStart, 0);
      this.pending = Buffer.concat([this.pending, chunk.subarray(from, from + 16 - this.pending.length)]);
      const header = readHeader(this.pending);
      if (header === 'short') {
        if (this.pending.length >= 16) this.nextAt = null;
        return;
      }
      this.pending = Buffer.alloc(0);
      this.nextAt = this.builder.add(this.nextAt, header, null);
    }
  }

  /** The layout of everything pushed: a box that should end beyond the last byte marks it truncated. */
  finish(): BoxLayout {
    const l = this.builder.layout;
    const fileEnd = this.position;
    if (l.malformedAt === null && l.truncated === null && this.nextAt !== null && this.nextAt > fileEnd) {
      l.truncated = { type: this.builder.lastType, at: this.builder.lastAt, declaredEnd: this.nextAt, fileEnd };
    } else if (this.pending.length > 0 && this.nextAt !== null) {
      l.truncated = { type: '', at: this.nextAt, declaredEnd: this.nextAt + 8, fileEnd };
    }
    return this.builder.finish();
  }
}
