import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { exactSizeChunks } from '../media-stream.util';
import type { PublishMedia } from '../social-provider.interface';

export interface MultipartBody {
  contentType: string;
  contentLength: number;
  body: Readable;
}

/** Quotes a form-data parameter value the way browsers do (", CR and LF percent-encoded). */
function quoteParam(value: string): string {
  return value.replace(/"/g, '%22').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

/**
 * A multipart/form-data body with text fields and one file part whose bytes are streamed from
 * `media.open()`; Content-Length is exact (the stream fails if the media is not `media.size` bytes).
 */
export function multipartFileBody(
  fileField: string,
  media: PublishMedia,
  fields: Record<string, string> = {},
  boundary: string = `----SocialPublishing${randomBytes(12).toString('hex')}`,
): MultipartBody {
  let head = '';
  for (const [name, value] of Object.entries(fields)) {
    head += `--${boundary}\r\nContent-Disposition: form-data; name="${quoteParam(name)}"\r\n\r\n${value}\r\n`;
  }
  const filename = quoteParam(media.filename || 'upload');
  head +=
    `--${boundary}\r\nContent-Disposition: form-data; name="${quoteParam(fileField)}"; filename="${filename}"\r\n` +
    `Content-Type: ${media.mimeType}\r\n\r\n`;
  const headBytes = Buffer.from(head, 'utf8');
  const tailBytes = Buffer.from(`\r\n--${boundary}--\r\n`, 'utf8');

  async function* chunks(): AsyncGenerator<Buffer> {
    yield headBytes;
    yield* exactSizeChunks(media);
    yield tailBytes;
  }

  return {
    contentType: `multipart/form-data; boundary=${boundary}`,
    contentLength: headBytes.length + media.size + tailBytes.length,
    body: Readable.from(chunks(), { objectMode: false }),
  };
}
