import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, open, readdir, readFile, rm, stat, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { makePng } from '../../../test/factories/png.factory';
import { readImageSizeFromStream } from '../image-size.util';
import { sniffMimeType } from '../media-type.util';
import { LocalDiskStorage } from './local-disk.storage';
import {
  InvalidMediaKeyError,
  MediaObjectNotFoundError,
  MissingPartsError,
  PartChecksumMismatchError,
  PartSizeMismatchError,
  PartTooLargeError,
} from './media-storage.interface';

const MAX = 1024 * 1024;

function sha256(data: Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

/** Streams `data` in small chunks, with a pause between them so concurrent writers interleave. */
function slowStream(data: Buffer, chunkSize = 4096): Readable {
  async function* chunks(): AsyncGenerator<Buffer> {
    for (let offset = 0; offset < data.length; offset += chunkSize) {
      await new Promise((resolve) => setImmediate(resolve));
      yield data.subarray(offset, offset + chunkSize);
    }
  }
  return Readable.from(chunks(), { objectMode: false });
}

async function listTree(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name));
}

describe('LocalDiskStorage', () => {
  let root: string;
  let storage: LocalDiskStorage;
  let id: string;

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'media-storage-'));
    storage = new LocalDiskStorage(root);
    id = randomUUID();
  });

  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('writes parts out of order, lists them sorted and reports size + sha256', async () => {
    const parts = [randomBytes(1000), randomBytes(2000), randomBytes(10)];
    const offsets = [0, 1000, 3000];
    for (const index of [2, 0, 1]) {
      await expect(
        storage.writePart(id, index, Readable.from([parts[index]]), { offset: offsets[index], maxBytes: MAX }),
      ).resolves.toEqual({
        size: parts[index].length,
        sha256: sha256(parts[index]),
      });
    }
    await expect(storage.listParts(id)).resolves.toEqual([0, 1, 2]);
    // Each part went straight to its offset in the one file of the upload.
    expect((await readFile(join(root, 'parts', id, 'data'))).subarray(1000, 3000)).toEqual(parts[1]);
  });

  it('lists no parts for an unknown upload and ignores temp files', async () => {
    await expect(storage.listParts(id)).resolves.toEqual([]);
    await storage.begin(id);
    await writeFile(join(root, 'parts', id, '.3.abc.tmp'), 'x');
    await expect(storage.listParts(id)).resolves.toEqual([]);
  });

  it('replaces a part that is sent again', async () => {
    await storage.writePart(id, 0, Readable.from([Buffer.from('first version, longer')]), { offset: 0, maxBytes: MAX });
    await storage.writePart(id, 0, Readable.from([Buffer.from('second')]), { offset: 0, maxBytes: MAX });
    await expect(storage.listParts(id)).resolves.toEqual([0]);
    await expect(storage.complete(id, 1)).resolves.toEqual({ size: 6, sha256: sha256(Buffer.from('second')) });
    expect((await readFile(join(root, 'objects', id.slice(0, 2), id))).toString()).toBe('second');
  });

  it('stops reading a too-large part, throws PartTooLargeError and leaves no file', async () => {
    let pulled = 0;
    const endless = new Readable({
      read() {
        pulled += 1024;
        this.push(Buffer.alloc(1024, 1));
      },
    });
    await expect(storage.writePart(id, 0, endless, { offset: 0, maxBytes: 10_000 })).rejects.toBeInstanceOf(
      PartTooLargeError,
    );
    expect(endless.destroyed).toBe(true);
    expect(pulled).toBeLessThan(200 * 1024);
    await expect(storage.listParts(id)).resolves.toEqual([]);
    await expect(storage.complete(id, 1)).rejects.toEqual(new MissingPartsError([0]));
  });

  it('keeps the previous copy when a re-send is too large', async () => {
    await storage.writePart(id, 0, Readable.from([Buffer.from('good')]), { offset: 0, maxBytes: 10 });
    await expect(
      storage.writePart(id, 0, Readable.from([Buffer.alloc(11)]), { offset: 0, maxBytes: 10 }),
    ).rejects.toBeInstanceOf(PartTooLargeError);
    expect((await listTree(join(root, 'parts'))).filter((path) => path.endsWith('.tmp'))).toEqual([]);
    await expect(storage.complete(id, 1)).resolves.toEqual({ size: 4, sha256: sha256(Buffer.from('good')) });
  });

  it('accepts a part of exactly maxBytes', async () => {
    await expect(
      storage.writePart(id, 0, Readable.from([Buffer.alloc(10)]), { offset: 0, maxBytes: 10 }),
    ).resolves.toMatchObject({
      size: 10,
    });
  });

  it('removes the temp file when the source stream fails', async () => {
    async function* broken(): AsyncGenerator<Buffer> {
      yield Buffer.alloc(500);
      throw new Error('client went away');
    }
    await expect(
      storage.writePart(id, 0, Readable.from(broken(), { objectMode: false }), { offset: 0, maxBytes: MAX }),
    ).rejects.toThrow('client went away');
    await expect(storage.listParts(id)).resolves.toEqual([]);
    expect((await listTree(join(root, 'parts'))).filter((path) => path.endsWith('.tmp'))).toEqual([]);
  });

  it('refuses a part with the wrong expected size or checksum and stores nothing', async () => {
    const data = Buffer.from('hello');
    await expect(
      storage.writePart(id, 0, Readable.from([data]), { offset: 0, maxBytes: MAX, expectedBytes: 6 }),
    ).rejects.toBeInstanceOf(PartSizeMismatchError);
    await expect(
      storage.writePart(id, 0, Readable.from([data]), {
        offset: 0,
        maxBytes: MAX,
        expectedSha256: sha256(Buffer.from('x')),
      }),
    ).rejects.toBeInstanceOf(PartChecksumMismatchError);
    await expect(storage.listParts(id)).resolves.toEqual([]);
    await expect(
      storage.writePart(id, 0, Readable.from([data]), {
        offset: 0,
        maxBytes: MAX,
        expectedBytes: 5,
        expectedSha256: sha256(data).toUpperCase(),
      }),
    ).resolves.toEqual({ size: 5, sha256: sha256(data) });
  });

  it('skips hashing with computeSha256: false, unless a digest must be checked', async () => {
    const data = Buffer.from('hello');
    await expect(
      storage.writePart(id, 0, Readable.from([data]), { offset: 0, maxBytes: MAX, computeSha256: false }),
    ).resolves.toEqual({ size: 5, sha256: null });
    await expect(
      storage.writePart(id, 1, Readable.from([data]), {
        offset: 5,
        maxBytes: MAX,
        computeSha256: false,
        expectedSha256: sha256(data),
      }),
    ).resolves.toEqual({ size: 5, sha256: sha256(data) });
    await expect(
      storage.writePart(id, 2, Readable.from([data]), {
        offset: 10,
        maxBytes: MAX,
        computeSha256: false,
        expectedSha256: sha256(Buffer.from('x')),
      }),
    ).rejects.toBeInstanceOf(PartChecksumMismatchError);
    expect(await storage.listParts(id)).toEqual([0, 1]);
  });

  it('leaves one whole version when the same part is written concurrently', async () => {
    const versions = Array.from({ length: 5 }, (_, n) => Buffer.alloc(200_000 + n * 1000, n + 1));
    const results = await Promise.all(
      versions.map((data) => storage.writePart(id, 0, slowStream(data), { offset: 0, maxBytes: MAX })),
    );
    results.forEach((result, n) => expect(result).toEqual({ size: versions[n].length, sha256: sha256(versions[n]) }));
    await storage.complete(id, 1);
    const stored = await readFile(join(root, 'objects', id.slice(0, 2), id));
    expect(versions.some((data) => data.equals(stored))).toBe(true);
  });

  it('writes different parts of one item concurrently', async () => {
    const parts = Array.from({ length: 6 }, () => randomBytes(50_000));
    await Promise.all(
      parts.map((data, index) =>
        storage.writePart(id, index, slowStream(data), { offset: index * 50_000, maxBytes: MAX }),
      ),
    );
    await expect(storage.listParts(id)).resolves.toEqual([0, 1, 2, 3, 4, 5]);
    await expect(storage.complete(id, 6)).resolves.toEqual({
      size: 300_000,
      sha256: sha256(Buffer.concat(parts)),
    });
  });

  it('completes by renaming the file the parts were written into (no copy of the bytes)', async () => {
    const parts = [randomBytes(4096), randomBytes(100)];
    for (const index of [1, 0]) {
      await storage.writePart(id, index, Readable.from([parts[index]]), { offset: index * 4096, maxBytes: MAX });
    }
    const assembled = await stat(join(root, 'parts', id, 'data'));
    await storage.complete(id, 2);
    const object = await stat(join(root, 'objects', id.slice(0, 2), id));
    expect(object.ino).toBe(assembled.ino);
    expect(object.size).toBe(4196);
  });

  it('a refused first copy leaves its part unmarked, so complete asks for it again', async () => {
    await storage.writePart(id, 0, Readable.from([Buffer.from('aaaa')]), { offset: 0, maxBytes: MAX });
    await expect(
      storage.writePart(id, 1, Readable.from([Buffer.from('bbbb')]), {
        offset: 4,
        maxBytes: MAX,
        expectedSha256: sha256(Buffer.from('cccc')),
      }),
    ).rejects.toBeInstanceOf(PartChecksumMismatchError);
    await expect(storage.complete(id, 2)).rejects.toEqual(new MissingPartsError([1]));
    await storage.writePart(id, 1, Readable.from([Buffer.from('cccc')]), { offset: 4, maxBytes: MAX });
    await expect(storage.complete(id, 2)).resolves.toEqual({ size: 8, sha256: sha256(Buffer.from('aaaacccc')) });
  });

  describe('complete', () => {
    const parts = [randomBytes(70_000), randomBytes(70_000), randomBytes(123)];
    const whole = Buffer.concat(parts);
    const offsets = [0, 70_000, 140_000];
    const put = (index: number) =>
      storage.writePart(id, index, Readable.from([parts[index]]), { offset: offsets[index], maxBytes: MAX });

    beforeEach(async () => {
      for (const index of [1, 2, 0]) await put(index);
    });

    it('joins parts in order, returns size + sha256, removes the parts and exposes the object', async () => {
      await expect(storage.complete(id, 3)).resolves.toEqual({ size: whole.length, sha256: sha256(whole) });
      await expect(storage.listParts(id)).resolves.toEqual([]);
      expect(await listTree(join(root, 'parts'))).toEqual([]);
      expect((await readFile(join(root, 'objects', id.slice(0, 2), id))).equals(whole)).toBe(true);
      await expect(storage.stat(id)).resolves.toEqual({ size: whole.length });
      await expect(storage.readHead(id, 16)).resolves.toEqual(whole.subarray(0, 16));
      expect((await storage.readHead(id, 10 * whole.length)).equals(whole)).toBe(true);
      const streamed: Buffer[] = [];
      for await (const chunk of storage.open(id)) streamed.push(chunk as Buffer);
      expect(Buffer.concat(streamed).equals(whole)).toBe(true);
    });

    it('is idempotent', async () => {
      const first = await storage.complete(id, 3);
      await expect(storage.complete(id, 3)).resolves.toEqual(first);
      expect((await readFile(join(root, 'objects', id.slice(0, 2), id))).equals(whole)).toBe(true);
    });

    it('survives concurrent calls', async () => {
      const expected = { size: whole.length, sha256: sha256(whole) };
      await expect(Promise.all([storage.complete(id, 3), storage.complete(id, 3)])).resolves.toEqual([
        expected,
        expected,
      ]);
    });

    it('recovers from a crash after the object was renamed but before all parts were dropped', async () => {
      const expected = await storage.complete(id, 3);
      // Simulate the crash: parts 1 and 2 still on disk next to the finished object.
      await put(1);
      await put(2);
      await expect(storage.complete(id, 3)).resolves.toEqual(expected);
      await expect(storage.listParts(id)).resolves.toEqual([]);
    });

    it('recovers from a crash before the rename (temp file left behind)', async () => {
      await writeFile(join(root, 'parts', id, '.object.dead.tmp'), 'half-written');
      await expect(storage.complete(id, 3)).resolves.toEqual({ size: whole.length, sha256: sha256(whole) });
      expect(await listTree(join(root, 'parts'))).toEqual([]);
    });

    // Parts are not flushed one by one (docs/adr/0004): what a crash or a failed write-back can do to an
    // acknowledged part's range in `data` is simulated by writing over that range behind the storage's back.
    const overwrite = async (position: number, bytes: Buffer) => {
      const handle = await open(join(root, 'parts', id, 'data'), 'r+');
      await handle.write(bytes, 0, bytes.length, position);
      await handle.close();
    };

    it('reports a part whose bytes were lost after it was acknowledged, unmarks it, and completes once it is sent again', async () => {
      await overwrite(offsets[1] + 4096, Buffer.alloc(4096)); // one page of part 1 reads back as zeros
      await expect(storage.complete(id, 3)).rejects.toEqual(new MissingPartsError([1]));
      await expect(storage.listParts(id)).resolves.toEqual([0, 2]);
      await expect(storage.stat(id)).resolves.toBeNull();
      await put(1);
      await expect(storage.complete(id, 3)).resolves.toEqual({ size: whole.length, sha256: sha256(whole) });
      expect((await readFile(join(root, 'objects', id.slice(0, 2), id))).equals(whole)).toBe(true);
    });

    it('reports parts overwritten by another writer, and parts cut off the end of the file', async () => {
      await overwrite(offsets[0] + 10, randomBytes(1));
      await truncate(join(root, 'parts', id, 'data'), offsets[2] + 5); // the tail of the last part never reached the disk
      await expect(storage.complete(id, 3)).rejects.toEqual(new MissingPartsError([0, 2]));
      await expect(storage.listParts(id)).resolves.toEqual([1]);
    });

    it('trusts parts marked before markers carried a checksum (they were flushed before they were marked)', async () => {
      for (const index of [0, 1, 2]) {
        await writeFile(join(root, 'parts', id, `${index}.part`), `${offsets[index]} ${parts[index].length}`);
      }
      await expect(storage.complete(id, 3)).resolves.toEqual({ size: whole.length, sha256: sha256(whole) });
    });

    it('flushes the file once at completion, and trusts no part when the flush fails', async () => {
      const probe = await open(join(root, 'parts', id, 'data'), 'r');
      const fileHandle = Object.getPrototypeOf(probe) as { datasync: () => Promise<void> };
      await probe.close();
      const flush = jest.spyOn(fileHandle, 'datasync');
      try {
        flush.mockRejectedValueOnce(Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' }));
        await expect(storage.complete(id, 3)).rejects.toThrow('EIO');
        await expect(storage.listParts(id)).resolves.toEqual([]);
        await expect(storage.complete(id, 3)).rejects.toEqual(new MissingPartsError([0, 1, 2]));
        flush.mockClear();
        for (const index of [0, 1, 2]) await put(index);
        await expect(storage.complete(id, 3)).resolves.toEqual({ size: whole.length, sha256: sha256(whole) });
        expect(flush).toHaveBeenCalledTimes(1);
      } finally {
        flush.mockRestore();
      }
    });

    it('throws MissingPartsError listing the absent parts', async () => {
      await storage.deletePart(id, 1);
      await expect(storage.complete(id, 4)).rejects.toEqual(new MissingPartsError([1, 3]));
      await expect(storage.listParts(id)).resolves.toEqual([0, 2]);
      await expect(storage.stat(id)).resolves.toBeNull();
    });
  });

  it('assembles a ~12 MB PNG from 5 MiB parts into a sniffable, measurable object', async () => {
    const png = makePng(2000, 2000, { noise: true, seed: 3 });
    const partSize = 5 * 1024 * 1024;
    const partCount = Math.ceil(png.length / partSize);
    expect(png.length).toBeGreaterThan(12_000_000);
    for (let index = partCount - 1; index >= 0; index--) {
      const data = png.subarray(index * partSize, (index + 1) * partSize);
      await storage.writePart(id, index, slowStream(data, 64 * 1024), {
        offset: index * partSize,
        maxBytes: partSize,
        expectedBytes: data.length,
        expectedSha256: sha256(data),
      });
    }
    await expect(storage.complete(id, partCount)).resolves.toEqual({ size: png.length, sha256: sha256(png) });
    expect(sniffMimeType(await storage.readHead(id, 64))).toBe('image/png');
    await expect(readImageSizeFromStream(storage.open(id), 'image/png')).resolves.toEqual({
      width: 2000,
      height: 2000,
    });
  });

  it('remove() deletes the object and all parts, and tolerates absence', async () => {
    await storage.writePart(id, 0, Readable.from([Buffer.from('a')]), { offset: 0, maxBytes: MAX });
    await storage.complete(id, 1);
    await storage.writePart(id, 0, Readable.from([Buffer.from('b')]), { offset: 0, maxBytes: MAX });
    await storage.remove(id);
    expect(await listTree(root)).toEqual([]);
    await expect(storage.stat(id)).resolves.toBeNull();
    await expect(storage.remove(id)).resolves.toBeUndefined();
    await expect(storage.remove(randomUUID())).resolves.toBeUndefined();
  });

  it('reports a missing object', async () => {
    await expect(storage.stat(id)).resolves.toBeNull();
    await expect(storage.readHead(id, 10)).rejects.toBeInstanceOf(MediaObjectNotFoundError);
    await expect(storage.complete(id, 1)).rejects.toBeInstanceOf(MissingPartsError);
    const stream = storage.open(id);
    await expect(new Promise((_resolve, reject) => stream.on('error', reject))).rejects.toMatchObject({
      code: 'ENOENT',
    });
  });

  it('normalises upper-case UUIDs to the same item', async () => {
    await storage.writePart(id.toUpperCase(), 0, Readable.from([Buffer.from('x')]), { offset: 0, maxBytes: MAX });
    await expect(storage.listParts(id)).resolves.toEqual([0]);
  });

  describe('rejects unsafe keys', () => {
    it.each(['../etc', '..', '', 'abc', `${randomUUID()}/../x`, `../${randomUUID()}`, `${randomUUID()}\0`])(
      'media id %j',
      async (bad) => {
        const data = Readable.from([Buffer.from('x')]);
        await expect(storage.writePart(bad, 0, data, { offset: 0, maxBytes: MAX })).rejects.toBeInstanceOf(
          InvalidMediaKeyError,
        );
        expect(data.destroyed).toBe(true);
        await expect(storage.listParts(bad)).rejects.toBeInstanceOf(InvalidMediaKeyError);
        await expect(storage.complete(bad, 1)).rejects.toBeInstanceOf(InvalidMediaKeyError);
        await expect(storage.remove(bad)).rejects.toBeInstanceOf(InvalidMediaKeyError);
        await expect(storage.stat(bad)).rejects.toBeInstanceOf(InvalidMediaKeyError);
        await expect(storage.readHead(bad, 1)).rejects.toBeInstanceOf(InvalidMediaKeyError);
        expect(() => storage.open(bad)).toThrow(InvalidMediaKeyError);
      },
    );

    it.each([-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 10_000, '1' as unknown as number])(
      'part index %p',
      async (bad) => {
        await expect(
          storage.writePart(id, bad, Readable.from([Buffer.from('x')]), { offset: 0, maxBytes: MAX }),
        ).rejects.toBeInstanceOf(InvalidMediaKeyError);
        await expect(storage.deletePart(id, bad)).rejects.toBeInstanceOf(InvalidMediaKeyError);
      },
    );

    it('part counts below one', async () => {
      await expect(storage.complete(id, 0)).rejects.toBeInstanceOf(InvalidMediaKeyError);
    });

    it('leaves nothing on disk', async () => {
      await expect(
        storage.writePart('../../x', 0, Readable.from([Buffer.from('x')]), { offset: 0, maxBytes: MAX }),
      ).rejects.toThrow();
      expect(await listTree(root)).toEqual([]);
    });
  });
});
