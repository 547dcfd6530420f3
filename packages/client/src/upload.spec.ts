import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { SocialPublishing } from './client';

/** An in-memory media endpoint: initialize, chunks (checked like the service does), finalize, get. */
class FakeMediaService {
  chunkSize = 4;
  items = new Map<string, { size: number; chunks: Map<number, Buffer>; status: string }>();
  chunkRequests: number[] = [];
  /** Chunk indexes whose next request fails without an answer (the chunk may or may not be stored). */
  dropNext = new Map<number, 'before' | 'after'>();
  private seq = 0;

  readonly fetch = async (req: Request): Promise<Response> => {
    const url = new URL(req.url);
    const json = (status: number, body: unknown) =>
      new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
    if (url.pathname === '/api/media/upload/initialize') {
      const body = (await req.json()) as { size: number };
      const id = `00000000-0000-4000-8000-${String(++this.seq).padStart(12, '0')}`;
      this.items.set(id, { size: body.size, chunks: new Map(), status: 'uploading' });
      return json(201, this.dto(id));
    }
    if (url.pathname === '/api/media/upload/file') {
      const form = await req.formData();
      const id = form.get('mediaId') as string;
      const index = Number(form.get('chunkIndex'));
      const bytes = Buffer.from(await (form.get('chunk') as Blob).arrayBuffer());
      this.chunkRequests.push(index);
      const drop = this.dropNext.get(index);
      this.dropNext.delete(index);
      if (drop === 'before') throw new TypeError('socket hang up');
      if (createHash('sha256').update(bytes).digest('hex') !== form.get('sha256')) {
        return json(400, { error: 'VALIDATION_ERROR', message: 'sha256 mismatch' });
      }
      this.items.get(id)!.chunks.set(index, bytes);
      if (drop === 'after') throw new TypeError('socket hang up');
      return json(200, {
        id,
        chunkIndex: index,
        receivedChunks: this.dto(id).receivedChunks,
        totalChunks: this.dto(id).totalChunks,
      });
    }
    if (url.pathname === '/api/media/upload/finalize') {
      const { mediaId } = (await req.json()) as { mediaId: string };
      const dto = this.dto(mediaId);
      if (dto.receivedChunks.length !== dto.totalChunks) return json(409, { error: 'CONFLICT', message: 'missing' });
      this.items.get(mediaId)!.status = 'ready';
      return json(200, this.dto(mediaId));
    }
    const id = url.pathname.split('/').pop()!;
    return json(200, this.dto(id));
  };

  dto(id: string) {
    const item = this.items.get(id)!;
    const totalChunks = Math.max(1, Math.ceil(item.size / this.chunkSize));
    return {
      id,
      status: item.status,
      size: item.size,
      chunkSize: this.chunkSize,
      totalChunks,
      receivedChunks: [...item.chunks.keys()].sort((a, b) => a - b),
    };
  }

  bytes(id: string): Buffer {
    const item = this.items.get(id)!;
    return Buffer.concat([...item.chunks.entries()].sort(([a], [b]) => a - b).map(([, b]) => b));
  }
}

const FILE = Buffer.from('0123456789abcdefghijklmnopqrstuvwxyz!'); // 37 bytes: 10 chunks of 4, the last of 1

function sp(fake: FakeMediaService) {
  return new SocialPublishing({ apiKey: 'k', baseUrl: 'http://api.test/api', fetch: fake.fetch });
}

describe('media.upload', () => {
  it.each([
    ['a Uint8Array', () => new Uint8Array(FILE)],
    ['an ArrayBuffer', () => FILE.buffer.slice(FILE.byteOffset, FILE.byteOffset + FILE.length)],
    ['a Blob', () => new Blob([FILE])],
    [
      'a Node Readable of odd pieces',
      () => Readable.from([FILE.subarray(0, 7), FILE.subarray(7, 9), FILE.subarray(9)]),
    ],
    ['an async iterable of unknown size', () => Readable.from([FILE])],
  ])('sends %s in chunks with their sha256 and finalizes', async (_name, make) => {
    const fake = new FakeMediaService();
    const progress: number[] = [];
    const source = make();
    const media = await sp(fake).media.upload(source, {
      filename: 'f.bin',
      mimeType: 'image/png',
      ...(_name.includes('odd pieces') ? { size: FILE.length } : {}),
      concurrency: 3,
      onProgress: (p) => progress.push(p.uploadedBytes),
    });
    expect(media.status).toBe('ready');
    expect(fake.bytes(media.id).equals(FILE)).toBe(true);
    expect(fake.chunkRequests.sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(progress).toHaveLength(10);
    expect(Math.max(...progress)).toBe(FILE.length);
  });

  it('resumes from receivedChunks after chunks fail without an answer', async () => {
    const fake = new FakeMediaService();
    fake.dropNext.set(2, 'before'); // never stored: sent again
    fake.dropNext.set(5, 'after'); // stored, answer lost: the service lists it, not sent again
    const media = await sp(fake).media.upload(new Uint8Array(FILE), { filename: 'f', mimeType: 'image/png' });
    expect(media.status).toBe('ready');
    expect(fake.bytes(media.id).equals(FILE)).toBe(true);
    expect(fake.chunkRequests.filter((i) => i === 2)).toHaveLength(2);
    expect(fake.chunkRequests.filter((i) => i === 5)).toHaveLength(1);
  });

  it('resumes a stream from the chunks it kept', async () => {
    const fake = new FakeMediaService();
    fake.dropNext.set(7, 'before');
    const media = await sp(fake).media.upload(Readable.from([FILE]), {
      filename: 'f',
      mimeType: 'image/png',
      size: FILE.length,
    });
    expect(fake.bytes(media.id).equals(FILE)).toBe(true);
    expect(fake.chunkRequests.filter((i) => i === 7)).toHaveLength(2);
  });

  it('picks up an earlier upload with mediaId and sends only the missing chunks', async () => {
    const fake = new FakeMediaService();
    const client = sp(fake);
    const first = await client.media
      .upload(new Uint8Array(FILE), { filename: 'f', mimeType: 'image/png' })
      .catch(() => undefined);
    expect(first).toBeDefined();
    // A second item, half sent by "an earlier process".
    const init = await fake.fetch(
      new Request('http://api.test/api/media/upload/initialize', {
        method: 'POST',
        body: JSON.stringify({ size: FILE.length }),
      }),
    );
    const { id } = (await init.json()) as { id: string };
    for (const i of [0, 1, 2, 3, 4]) fake.items.get(id)!.chunks.set(i, FILE.subarray(i * 4, i * 4 + 4));
    fake.chunkRequests = [];
    const media = await client.media.upload(Readable.from([FILE]), {
      filename: 'f',
      mimeType: 'image/png',
      size: FILE.length,
      mediaId: id,
    });
    expect(media.id).toBe(id);
    expect(fake.chunkRequests.sort((a, b) => a - b)).toEqual([5, 6, 7, 8, 9]);
    expect(fake.bytes(id).equals(FILE)).toBe(true);
  });

  it('stops at a permanent failure without resuming', async () => {
    const fake = new FakeMediaService();
    const original = fake.fetch;
    const failing = async (req: Request) =>
      new URL(req.url).pathname.endsWith('/file')
        ? new Response(JSON.stringify({ error: 'UNSUPPORTED_MEDIA_TYPE', message: 'not a PNG' }), { status: 415 })
        : original(req);
    const client = new SocialPublishing({ apiKey: 'k', baseUrl: 'http://api.test/api', fetch: failing });
    await expect(
      client.media.upload(new Uint8Array(FILE), { filename: 'f', mimeType: 'image/png' }),
    ).rejects.toMatchObject({
      status: 415,
      code: 'UNSUPPORTED_MEDIA_TYPE',
    });
  });
});
