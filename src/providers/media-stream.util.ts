import { Readable } from 'node:stream';
import type { PublishMedia } from './social-provider.interface';

/** The media's bytes did not match its declared size (the upload is aborted, never sent truncated). */
export class MediaSizeMismatchError extends Error {
  constructor(
    readonly mediaId: string,
    readonly declared: number,
    readonly actual: number,
  ) {
    super(`Media ${mediaId} has ${actual} bytes but ${declared} were declared`);
    this.name = 'MediaSizeMismatchError';
  }
}

/** Yields the media's bytes, failing with MediaSizeMismatchError when they differ from `media.size`. */
export async function* exactSizeChunks(media: PublishMedia): AsyncGenerator<Buffer> {
  let total = 0;
  for await (const chunk of media.open()) {
    const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string);
    total += buf.length;
    if (total > media.size) throw new MediaSizeMismatchError(media.id, media.size, total);
    yield buf;
  }
  if (total !== media.size) throw new MediaSizeMismatchError(media.id, media.size, total);
}

/** A byte stream of the media that is guaranteed to be exactly `media.size` bytes or to fail. */
export function openExactSize(media: PublishMedia): Readable {
  return Readable.from(exactSizeChunks(media), { objectMode: false });
}
