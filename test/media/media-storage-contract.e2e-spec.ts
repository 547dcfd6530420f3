/**
 * One contract for every `MediaStorage` driver: the local disk driver, and the S3 driver against a real
 * S3-compatible server (s3rver started by the test setup, or TEST_S3_ENDPOINT) with its bookkeeping in a real
 * Postgres database. Parts respect the driver's `minPartSize`, as the media service's chunking does.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { DataSource } from 'typeorm';
import { mediaConfig } from '../../src/config/media.config';
import { LocalDiskStorage } from '../../src/media/storage/local-disk.storage';
import { MediaMultipartStore } from '../../src/media/storage/media-multipart.store';
import {
  InvalidMediaKeyError,
  MediaObjectNotFoundError,
  MediaStorage,
  MissingPartsError,
  PartChecksumMismatchError,
  PartSizeMismatchError,
  PartTooLargeError,
} from '../../src/media/storage/media-storage.interface';
import { S3Storage, createS3Client } from '../../src/media/storage/s3.storage';
import { testS3Env } from '../setup/s3-server';
import { DEFAULT_ORGANIZATION_ID } from '../../src/auth/organization.entity';
import { TestEnvironment } from '../support/test-app';

const sha256 = (data: Buffer): string => createHash('sha256').update(data).digest('hex');

interface Harness {
  storage: MediaStorage;
  /** A fresh media id the driver may use (the S3 driver keeps its state in that item's row). */
  newId(): Promise<string>;
  /** False where the server overwrites a part in place (s3rver): a refused re-send may then spoil the old copy. */
  keepsEarlierCopyOnRefusal: boolean;
  close(): Promise<void>;
}

async function localHarness(): Promise<Harness> {
  const root = await mkdtemp(join(tmpdir(), 'sps-contract-'));
  return {
    storage: new LocalDiskStorage(root),
    newId: () => Promise.resolve(randomUUID()),
    keepsEarlierCopyOnRefusal: true,
    close: () => rm(root, { recursive: true, force: true }),
  };
}

async function s3Harness(): Promise<Harness> {
  const env = new TestEnvironment();
  const s3Env = testS3Env();
  await env.create(s3Env);
  const dataSource = new DataSource({ type: 'postgres', url: env.databaseUrl });
  await dataSource.initialize();
  const [{ id: workspaceId }] = await dataSource.query<Array<{ id: string }>>(
    `INSERT INTO workspaces (name, organization_id) VALUES ($1, $2) RETURNING id`,
    [`contract-${randomBytes(4).toString('hex')}`, DEFAULT_ORGANIZATION_ID],
  );
  const s3 = mediaConfig().s3!;
  const client = createS3Client(s3);
  return {
    storage: new S3Storage(
      client,
      s3.bucket,
      `contract-${randomBytes(4).toString('hex')}/`,
      new MediaMultipartStore(dataSource),
    ),
    newId: async () => {
      const id = randomUUID();
      await dataSource.query(
        `INSERT INTO media (id, workspace_id, status, filename, mime_type, size, chunk_size, total_chunks)
         VALUES ($1, $2, 'uploading', 'f', 'image/png', 1, 1, 1)`,
        [id, workspaceId],
      );
      return id;
    },
    keepsEarlierCopyOnRefusal: Boolean(process.env.TEST_S3_ENDPOINT),
    close: async () => {
      client.destroy();
      await dataSource.destroy();
      await env.destroy();
    },
  };
}

function write(
  storage: MediaStorage,
  id: string,
  index: number,
  data: Buffer,
  { partSize = data.length, ...extra }: { expectedSha256?: string; partSize?: number } = {},
) {
  return storage.writePart(id, index, Readable.from([data]), {
    offset: index * partSize,
    maxBytes: data.length,
    expectedBytes: data.length,
    computeSha256: false,
    ...extra,
  });
}

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

describe.each([
  ['local disk', localHarness],
  ['S3', s3Harness],
])('MediaStorage contract: %s', (_name, makeHarness) => {
  let h: Harness;
  let storage: MediaStorage;
  /** Size of a full (non-last) part for this driver. */
  let partSize: number;

  beforeAll(async () => {
    h = await makeHarness();
    storage = h.storage;
    partSize = Math.max(storage.limits.minPartSize, 64 * 1024);
  });

  afterAll(async () => {
    await h?.close();
  });

  it('is reachable', async () => {
    await expect(storage.ping()).resolves.toBeUndefined();
  });

  it('joins parts written out of order and concurrently into one object, readable whole, by head and by size', async () => {
    const id = await h.newId();
    await storage.begin(id);
    const parts = [randomBytes(partSize), randomBytes(partSize), randomBytes(1234)];
    const results = await Promise.all(
      [2, 0, 1].map((i) => write(storage, id, i, parts[i], { expectedSha256: sha256(parts[i]), partSize })),
    );
    expect(results.map((r) => r.size)).toEqual([1234, partSize, partSize]);
    expect(results[0].sha256).toBe(sha256(parts[2]));
    await expect(storage.listParts(id)).resolves.toEqual([0, 1, 2]);

    const whole = Buffer.concat(parts);
    await expect(storage.complete(id, 3)).resolves.toEqual({ size: whole.length, sha256: sha256(whole) });
    await expect(storage.stat(id)).resolves.toEqual({ size: whole.length });
    await expect(storage.readHead(id, 16)).resolves.toEqual(whole.subarray(0, 16));
    expect((await readAll(storage.open(id))).equals(whole)).toBe(true);
    // Idempotent: completing again (a finalize retried after a crash) gives the same digest.
    await expect(storage.complete(id, 3)).resolves.toEqual({ size: whole.length, sha256: sha256(whole) });
  });

  it('readHead of more bytes than the object holds returns the whole object', async () => {
    const id = await h.newId();
    const data = randomBytes(100);
    await write(storage, id, 0, data);
    await storage.complete(id, 1);
    expect((await storage.readHead(id, 10_000)).equals(data)).toBe(true);
  });

  it('a part sent again replaces the earlier copy', async () => {
    const id = await h.newId();
    await write(storage, id, 0, Buffer.from('first version'));
    await write(storage, id, 0, Buffer.from('second'));
    await expect(storage.complete(id, 1)).resolves.toEqual({ size: 6, sha256: sha256(Buffer.from('second')) });
    expect((await readAll(storage.open(id))).toString()).toBe('second');
  });

  it('refuses a too-large part without reading the rest of the stream', async () => {
    const id = await h.newId();
    const good = Buffer.from('good');
    await write(storage, id, 0, good);
    let pulled = 0;
    const endless = new Readable({
      read() {
        pulled += 1024;
        this.push(Buffer.alloc(1024, 1));
      },
    });
    await expect(
      storage.writePart(id, 0, endless, { offset: 0, maxBytes: 10_000, expectedBytes: 10_000 }),
    ).rejects.toBeInstanceOf(PartTooLargeError);
    expect(endless.destroyed).toBe(true);
    expect(pulled).toBeLessThan(1024 * 1024);
    if (h.keepsEarlierCopyOnRefusal)
      await expect(storage.complete(id, 1)).resolves.toMatchObject({ sha256: sha256(good) });
  });

  it('refuses a short part and a part with the wrong SHA-256', async () => {
    const id = await h.newId();
    const good = Buffer.from('hello');
    await write(storage, id, 0, good);
    await expect(
      storage.writePart(id, 0, Readable.from([Buffer.from('hell')]), { offset: 0, maxBytes: 5, expectedBytes: 5 }),
    ).rejects.toEqual(new PartSizeMismatchError(5, 4));
    await expect(write(storage, id, 0, Buffer.from('jello'), { expectedSha256: sha256(good) })).rejects.toBeInstanceOf(
      PartChecksumMismatchError,
    );
    if (h.keepsEarlierCopyOnRefusal)
      await expect(storage.complete(id, 1)).resolves.toMatchObject({ sha256: sha256(good) });
  });

  it('passes on the source stream error and stores nothing new', async () => {
    const id = await h.newId();
    async function* broken(): AsyncGenerator<Buffer> {
      yield Buffer.alloc(500);
      throw new Error('client went away');
    }
    await expect(
      storage.writePart(id, 0, Readable.from(broken(), { objectMode: false }), {
        offset: 0,
        maxBytes: 1000,
        expectedBytes: 1000,
      }),
    ).rejects.toThrow('client went away');
    await expect(storage.listParts(id)).resolves.toEqual([]);
  });

  it('complete names the missing parts and produces no object', async () => {
    const id = await h.newId();
    await write(storage, id, 0, randomBytes(partSize));
    await write(storage, id, 2, randomBytes(10), { partSize });
    await expect(storage.complete(id, 4)).rejects.toEqual(new MissingPartsError([1, 3]));
    await expect(storage.stat(id)).resolves.toBeNull();
    await storage.deletePart(id, 2);
    await expect(storage.listParts(id)).resolves.toEqual([0]);
  });

  it('remove deletes an unfinished upload and a finished object, and tolerates absence', async () => {
    const unfinished = await h.newId();
    await write(storage, unfinished, 0, randomBytes(10));
    await storage.remove(unfinished);
    await expect(storage.stat(unfinished)).resolves.toBeNull();

    const finished = await h.newId();
    await write(storage, finished, 0, randomBytes(10));
    await storage.complete(finished, 1);
    await storage.remove(finished);
    await expect(storage.stat(finished)).resolves.toBeNull();
    await expect(storage.readHead(finished, 4)).rejects.toBeInstanceOf(MediaObjectNotFoundError);
    await expect(readAll(storage.open(finished))).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(storage.remove(finished)).resolves.toBeUndefined();
    await expect(storage.remove(randomUUID())).resolves.toBeUndefined();
  });

  it('refuses keys that are not UUIDs and part indexes out of range', async () => {
    const data = Readable.from([Buffer.from('x')]);
    await expect(
      storage.writePart('../etc', 0, data, { offset: 0, maxBytes: 1, expectedBytes: 1 }),
    ).rejects.toBeInstanceOf(InvalidMediaKeyError);
    expect(data.destroyed).toBe(true);
    const id = await h.newId();
    await expect(write(storage, id, 10_000, Buffer.from('x'))).rejects.toBeInstanceOf(InvalidMediaKeyError);
    await expect(storage.complete(id, 0)).rejects.toBeInstanceOf(InvalidMediaKeyError);
    expect(() => storage.open('x')).toThrow(InvalidMediaKeyError);
  });
});

describe('S3 driver readiness', () => {
  it('ping rejects for a bucket that does not exist and for wrong credentials', async () => {
    const s3 = mediaConfigFor(testS3Env());
    const missingBucket = createS3Client(s3);
    const wrongSecret = createS3Client({ ...s3, secretAccessKey: 'not-the-secret' });
    const noState = { get: () => Promise.resolve(null) } as unknown as MediaMultipartStore;
    try {
      await expect(new S3Storage(missingBucket, 'sps-no-such-bucket', '', noState).ping()).rejects.toMatchObject({
        name: 'NoSuchBucket',
      });
      await expect(new S3Storage(wrongSecret, s3.bucket, '', noState).ping()).rejects.toThrow();
    } finally {
      missingBucket.destroy();
      wrongSecret.destroy();
    }
  });
});

/** The S3 settings the app would read from this environment. */
function mediaConfigFor(env: Record<string, string>) {
  const saved = { ...process.env };
  Object.assign(process.env, env);
  try {
    return mediaConfig().s3!;
  } finally {
    process.env = saved;
  }
}
