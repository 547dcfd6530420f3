import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { exactSizeChunks } from './media-stream.util';
import type { PublishMedia } from './social-provider.interface';

/** A multipart/form-data body streamed from its parts, with an exact Content-Length. */
export interface MultipartForm {
  contentType: string;
  contentLength: number;
  body: Readable;
}

/** One part: a text field, or a media item's bytes under `name` with `filename`. */
export type FormPart =
  { name: string; value: string } | { name: string; media: PublishMedia; filename?: string; contentType?: string };

/** Quotes a form-data parameter value the way browsers do (", CR and LF percent-encoded). */
function quoteParam(value: string): string {
  return value.replace(/"/g, '%22').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

/**
 * A multipart/form-data body with any number of text fields and files (Telegram's media groups and
 * Discord's attachments send several files in one request). File bytes are streamed from
 * `media.open()`, and the stream fails when a file is not `media.size` bytes, so nothing truncated
 * is ever sent.
 */
export function multipartForm(
  parts: FormPart[],
  boundary: string = `----SocialPublishing${randomBytes(12).toString('hex')}`,
): MultipartForm {
  const pieces: Array<Buffer | PublishMedia> = [];
  let length = 0;
  const push = (piece: Buffer | PublishMedia) => {
    pieces.push(piece);
    length += Buffer.isBuffer(piece) ? piece.length : piece.size;
  };
  for (const part of parts) {
    if ('value' in part) {
      push(
        Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; name="${quoteParam(part.name)}"\r\n\r\n${part.value}\r\n`,
          'utf8',
        ),
      );
      continue;
    }
    const filename = quoteParam(part.filename ?? (part.media.filename || 'upload'));
    push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${quoteParam(part.name)}"; filename="${filename}"\r\n` +
          `Content-Type: ${part.contentType ?? part.media.mimeType}\r\n\r\n`,
        'utf8',
      ),
    );
    push(part.media);
    push(Buffer.from('\r\n', 'utf8'));
  }
  push(Buffer.from(`--${boundary}--\r\n`, 'utf8'));

  async function* chunks(): AsyncGenerator<Buffer> {
    for (const piece of pieces) {
      if (Buffer.isBuffer(piece)) yield piece;
      else yield* exactSizeChunks(piece);
    }
  }

  return {
    contentType: `multipart/form-data; boundary=${boundary}`,
    contentLength: length,
    body: Readable.from(chunks(), { objectMode: false }),
  };
}
