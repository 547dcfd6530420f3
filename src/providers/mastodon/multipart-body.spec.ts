import { Readable } from 'node:stream';
import { MediaSizeMismatchError } from '../media-stream.util';
import type { PublishMedia } from '../social-provider.interface';
import { multipartFileBody } from './multipart-body';

function media(bytes: Buffer, declared = bytes.length): PublishMedia {
  return {
    id: 'm1',
    mimeType: 'image/png',
    size: declared,
    width: 1,
    height: 1,
    filename: 'pic "1".png',
    altText: null,
    open: () => Readable.from([bytes.subarray(0, 3), bytes.subarray(3)]),
    publicUrl: () => Promise.reject(new Error('not used')),
    as: () => Promise.reject(new Error('not used')),
  };
}

async function collect(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

describe('multipartFileBody', () => {
  it('builds a form-data body with an exact Content-Length', async () => {
    const bytes = Buffer.from('0123456789');
    const body = multipartFileBody('file', media(bytes), { description: 'alt' }, 'BOUNDARY');
    expect(body.contentType).toBe('multipart/form-data; boundary=BOUNDARY');
    const out = await collect(body.body);
    expect(out.length).toBe(body.contentLength);
    expect(out.toString()).toBe(
      '--BOUNDARY\r\nContent-Disposition: form-data; name="description"\r\n\r\nalt\r\n' +
        '--BOUNDARY\r\nContent-Disposition: form-data; name="file"; filename="pic %221%22.png"\r\n' +
        'Content-Type: image/png\r\n\r\n0123456789\r\n--BOUNDARY--\r\n',
    );
  });

  it('fails when the media is not its declared size', async () => {
    await expect(collect(multipartFileBody('file', media(Buffer.from('0123456789'), 12)).body)).rejects.toBeInstanceOf(
      MediaSizeMismatchError,
    );
    await expect(collect(multipartFileBody('file', media(Buffer.from('0123456789'), 5)).body)).rejects.toBeInstanceOf(
      MediaSizeMismatchError,
    );
  });
});
