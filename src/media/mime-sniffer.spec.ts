import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { makePng } from '../../test/factories/png.factory';
import { parseUploadChunkFields } from './dto/upload-chunk.dto';
import { MimeMismatchError, MimeSniffer } from './mime-sniffer';

async function run(bytes: Buffer, declared: string, sliceSize = 5): Promise<Buffer> {
  const slices: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += sliceSize) slices.push(bytes.subarray(i, i + sliceSize));
  const out: Buffer[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      out.push(chunk);
      callback();
    },
  });
  await pipeline(Readable.from(slices), new MimeSniffer(declared), sink);
  return Buffer.concat(out);
}

describe('MimeSniffer', () => {
  it('passes matching bytes through unchanged, however they are sliced', async () => {
    const png = makePng(20, 10, { noise: true });
    await expect(run(png, 'image/png')).resolves.toEqual(png);
    await expect(run(png, 'image/png', 1000)).resolves.toEqual(png);
  });

  it('fails on the first bytes when they are not the declared type', async () => {
    const text = Buffer.from('hello world, this is plainly not an image at all; '.repeat(10));
    await expect(run(text, 'image/png')).rejects.toBeInstanceOf(MimeMismatchError);
    await expect(run(makePng(4, 4), 'image/jpeg')).rejects.toThrow(/image\/png, not image\/jpeg/);
  });

  it('decides at the end for streams shorter than the sniff window', async () => {
    const gif = Buffer.from('GIF89a\x01\x00\x01\x00\x00\x00\x00;', 'latin1');
    await expect(run(gif, 'image/gif')).resolves.toEqual(gif);
    await expect(run(gif, 'image/webp')).rejects.toBeInstanceOf(MimeMismatchError);
    await expect(run(Buffer.alloc(0), 'image/png')).rejects.toBeInstanceOf(MimeMismatchError);
  });
});

describe('parseUploadChunkFields', () => {
  const mediaId = '3f1c1a52-8a4e-4c57-9a53-2b8f3c8f0e11';

  it('accepts the fields and turns chunkIndex into a number', () => {
    expect(parseUploadChunkFields({ mediaId, chunkIndex: '12' })).toEqual({ mediaId, chunkIndex: 12 });
    const sha256 = 'A'.repeat(64);
    expect(parseUploadChunkFields({ mediaId, chunkIndex: '0', sha256 })).toEqual({ mediaId, chunkIndex: 0, sha256 });
  });

  it.each([
    [{ chunkIndex: '0' }, 'mediaId'],
    [{ mediaId, chunkIndex: '-1' }, 'chunkIndex'],
    [{ mediaId, chunkIndex: '01' }, 'chunkIndex'],
    [{ mediaId, chunkIndex: '1e3' }, 'chunkIndex'],
    [{ mediaId }, 'chunkIndex'],
    [{ mediaId, chunkIndex: '0', sha256: 'xyz' }, 'sha256'],
    [{ mediaId, chunkIndex: '0', extra: '1' }, 'extra'],
  ])('refuses %j naming %s', (fields, field) => {
    try {
      parseUploadChunkFields(fields);
      throw new Error('accepted');
    } catch (err) {
      expect((err as { code: string }).code).toBe('VALIDATION_ERROR');
      expect((err as { details: Array<{ field: string }> }).details.map((d) => d.field)).toEqual([field]);
    }
  });
});
