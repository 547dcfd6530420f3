import { Transform, type TransformCallback } from 'node:stream';
import { MIME_SNIFF_BYTES, mimeMatches, sniffMimeType } from './media-type.util';

/** The leading bytes of an upload are not of the declared type. */
export class MimeMismatchError extends Error {
  constructor(
    readonly declared: string,
    readonly sniffed: string | null,
  ) {
    super(`The file's bytes are ${sniffed ?? 'not of a supported type'}, not ${declared}`);
    this.name = 'MimeMismatchError';
  }
}

/**
 * Passes bytes through untouched while keeping a copy of the first `MIME_SNIFF_BYTES`; fails with
 * `MimeMismatchError` as soon as they (or the whole stream, if shorter) do not match `declared`.
 * Only the head is ever copied, so memory stays constant whatever the stream's size.
 */
export class MimeSniffer extends Transform {
  private readonly head = Buffer.alloc(MIME_SNIFF_BYTES);
  private filled = 0;
  private checked = false;

  constructor(private readonly declared: string) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    if (!this.checked) {
      this.filled += chunk.copy(this.head, this.filled, 0, Math.min(chunk.length, MIME_SNIFF_BYTES - this.filled));
      if (this.filled === MIME_SNIFF_BYTES) {
        const err = this.check();
        if (err) return callback(err);
      }
    }
    callback(null, chunk);
  }

  override _flush(callback: TransformCallback): void {
    callback(this.checked ? null : this.check());
  }

  private check(): MimeMismatchError | null {
    this.checked = true;
    const sniffed = sniffMimeType(this.head.subarray(0, this.filled));
    return mimeMatches(this.declared, sniffed) ? null : new MimeMismatchError(this.declared, sniffed);
  }
}
