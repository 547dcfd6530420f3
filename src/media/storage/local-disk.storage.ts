/**
 * `MediaStorage` on a local directory:
 *   <root>/parts/<mediaId>/<index>.part     uploaded parts (plus hidden *.tmp files being written)
 *   <root>/objects/<first2>/<mediaId>       completed objects
 * Every file is written to a unique temp file under parts/<mediaId>/, fsynced, then renamed into place,
 * so readers and concurrent writers only ever see whole files.
 */
import { createHash, randomUUID, type Hash } from 'node:crypto';
import { constants, createReadStream } from 'node:fs';
import { access, mkdir, open, readdir, rename, rm, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { Readable, Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { assertByteCount, assertMediaId, assertPartCount, assertPartIndex, assertSha256Hex } from './media-key.util';
import {
  MediaObjectNotFoundError,
  MissingPartsError,
  PartChecksumMismatchError,
  PartSizeMismatchError,
  PartTooLargeError,
} from './media-storage.errors';
import {
  S3_MAX_PART_COUNT,
  S3_MAX_PART_SIZE,
  type MediaStorage,
  type MediaStorageLimits,
  type StoredDigest,
  type StoredPart,
  type WritePartOptions,
} from './media-storage.interface';

const PART_FILE_PATTERN = /^(\d+)\.part$/;

function isNotFound(err: unknown): boolean {
  return (err as NodeJS.ErrnoException | null)?.code === 'ENOENT';
}

/** Flushes a file's data to disk so a rename after a crash never exposes an empty or short file. */
async function fsyncFile(path: string): Promise<void> {
  const handle = await open(path, 'r+');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Passes bytes through while counting and (optionally) hashing them; fails once more than `maxBytes` arrive. */
class DigestMeter extends Transform {
  size = 0;
  private readonly hash: Hash | null;

  constructor(
    private readonly maxBytes = Number.POSITIVE_INFINITY,
    hash = true,
  ) {
    super();
    this.hash = hash ? createHash('sha256') : null;
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.size += chunk.length;
    if (this.size > this.maxBytes) {
      callback(new PartTooLargeError(this.maxBytes));
      return;
    }
    this.hash?.update(chunk);
    callback(null, chunk);
  }

  digest(): StoredPart {
    return { size: this.size, sha256: this.hash ? this.hash.digest('hex') : null };
  }
}

/** The digest of a write that was hashed. */
function hashed(part: StoredPart): StoredDigest {
  if (part.sha256 === null) throw new Error('object was written without hashing');
  return { size: part.size, sha256: part.sha256 };
}

/** Checks a written part against the optional expected size and digest before it is renamed into place. */
function partVerifier(opts: WritePartOptions): (digest: StoredPart) => void {
  const expectedBytes =
    opts.expectedBytes === undefined ? undefined : assertByteCount('expectedBytes', opts.expectedBytes);
  const expectedSha256 = opts.expectedSha256 === undefined ? undefined : assertSha256Hex(opts.expectedSha256);
  return (written) => {
    if (expectedBytes !== undefined && written.size !== expectedBytes) {
      throw new PartSizeMismatchError(expectedBytes, written.size);
    }
    if (expectedSha256 !== undefined && written.sha256 !== expectedSha256) {
      throw new PartChecksumMismatchError(expectedSha256, written.sha256 ?? '');
    }
  };
}

export class LocalDiskStorage implements MediaStorage {
  /** Same part rules as S3 except the minimum size, so small chunks work in development and tests. */
  readonly limits: MediaStorageLimits = {
    minPartSize: 1,
    maxPartSize: S3_MAX_PART_SIZE,
    maxPartCount: S3_MAX_PART_COUNT,
  };
  private readonly root: string;

  constructor(rootDir: string) {
    this.root = resolve(rootDir);
  }

  async begin(mediaId: string): Promise<void> {
    await mkdir(this.partsDir(assertMediaId(mediaId)), { recursive: true });
  }

  /** Always consumes or destroys `data`, also when the arguments are refused. */
  async writePart(mediaId: string, index: number, data: Readable, opts: WritePartOptions): Promise<StoredPart> {
    try {
      const id = assertMediaId(mediaId);
      assertPartIndex(index, this.limits.maxPartCount);
      const verify = partVerifier(opts);
      await mkdir(this.partsDir(id), { recursive: true });
      const hash = opts.computeSha256 !== false || opts.expectedSha256 !== undefined;
      const meter = new DigestMeter(assertByteCount('maxBytes', opts.maxBytes), hash);
      return await this.writeAtomically(id, `${index}`, this.partPath(id, index), data, meter, verify);
    } catch (err) {
      data.destroy();
      throw err;
    }
  }

  async deletePart(mediaId: string, index: number): Promise<void> {
    const id = assertMediaId(mediaId);
    await rm(this.partPath(id, assertPartIndex(index, this.limits.maxPartCount)), { force: true });
  }

  async listParts(mediaId: string): Promise<number[]> {
    let names: string[];
    try {
      names = await readdir(this.partsDir(assertMediaId(mediaId)));
    } catch (err) {
      if (isNotFound(err)) return [];
      throw err;
    }
    const indexes: number[] = [];
    for (const name of names) {
      const match = PART_FILE_PATTERN.exec(name);
      if (match) indexes.push(Number(match[1]));
    }
    return indexes.sort((a, b) => a - b);
  }

  async complete(mediaId: string, partCount: number): Promise<StoredDigest> {
    const id = assertMediaId(mediaId);
    assertPartCount(partCount, this.limits.maxPartCount);
    try {
      return await this.completeOnce(id, partCount);
    } catch (err) {
      // A concurrent `complete` may have removed the parts while we read them: decide again once.
      if (!isNotFound(err)) throw err;
      return this.completeOnce(id, partCount);
    }
  }

  open(mediaId: string): Readable {
    return createReadStream(this.objectPath(assertMediaId(mediaId)));
  }

  async readHead(mediaId: string, bytes: number): Promise<Buffer> {
    const id = assertMediaId(mediaId);
    assertByteCount('bytes', bytes);
    const handle = await open(this.objectPath(id), 'r').catch((err: unknown) => {
      throw isNotFound(err) ? new MediaObjectNotFoundError(id) : err;
    });
    try {
      const buffer = Buffer.alloc(Math.min(bytes, (await handle.stat()).size));
      let filled = 0;
      while (filled < buffer.length) {
        const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, filled);
        if (bytesRead === 0) break;
        filled += bytesRead;
      }
      return buffer.subarray(0, filled);
    } finally {
      await handle.close();
    }
  }

  async stat(mediaId: string): Promise<{ size: number } | null> {
    try {
      const stats = await stat(this.objectPath(assertMediaId(mediaId)));
      return { size: stats.size };
    } catch (err) {
      if (isNotFound(err)) return null;
      throw err;
    }
  }

  async remove(mediaId: string): Promise<void> {
    const id = assertMediaId(mediaId);
    await rm(this.partsDir(id), { recursive: true, force: true });
    await rm(this.objectPath(id), { force: true });
  }

  /** The root directory exists (created if missing) and is writable. */
  async ping(): Promise<void> {
    await mkdir(this.root, { recursive: true });
    await access(this.root, constants.W_OK);
  }

  private async completeOnce(id: string, partCount: number): Promise<StoredDigest> {
    const present = new Set(await this.listParts(id));
    const missing: number[] = [];
    for (let index = 0; index < partCount; index++) {
      if (!present.has(index)) missing.push(index);
    }
    if (missing.length === 0) {
      // Also covers a crash after the rename but before the parts were dropped: rebuilding is harmless.
      const digest = await this.joinParts(id, partCount);
      await rm(this.partsDir(id), { recursive: true, force: true });
      return digest;
    }
    if ((await this.stat(id)) === null) throw new MissingPartsError(missing);
    // The object was renamed into place and the parts were (partly) dropped: finish the cleanup.
    await rm(this.partsDir(id), { recursive: true, force: true });
    return this.hashObject(id);
  }

  private async joinParts(id: string, partCount: number): Promise<StoredDigest> {
    const partPaths = Array.from({ length: partCount }, (_, index) => this.partPath(id, index));
    async function* concatenated(): AsyncGenerator<Buffer> {
      for (const path of partPaths) {
        for await (const chunk of createReadStream(path)) yield chunk as Buffer;
      }
    }
    const target = this.objectPath(id);
    await mkdir(dirname(target), { recursive: true });
    return hashed(await this.writeAtomically(id, 'object', target, Readable.from(concatenated()), new DigestMeter()));
  }

  private async hashObject(id: string): Promise<StoredDigest> {
    const hash = createHash('sha256');
    let size = 0;
    try {
      for await (const chunk of createReadStream(this.objectPath(id))) {
        hash.update(chunk as Buffer);
        size += (chunk as Buffer).length;
      }
    } catch (err) {
      throw isNotFound(err) ? new MediaObjectNotFoundError(id) : err;
    }
    return { size, sha256: hash.digest('hex') };
  }

  /**
   * Streams `source` through `meter` into a fresh temp file under the item's parts directory, lets `verify`
   * veto the result, then fsyncs and renames it to `target`. The temp file is removed on any failure.
   */
  private async writeAtomically(
    id: string,
    label: string,
    target: string,
    source: Readable,
    meter: DigestMeter,
    verify?: (digest: StoredPart) => void,
  ): Promise<StoredPart> {
    const temp = join(this.partsDir(id), `.${label}.${randomUUID()}.tmp`);
    try {
      // Create the file before streaming so a failed pipeline can never re-create it after our cleanup.
      const handle = await open(temp, 'wx');
      await pipeline(source, meter, handle.createWriteStream());
      const digest = meter.digest();
      verify?.(digest);
      await fsyncFile(temp);
      await rename(temp, target);
      return digest;
    } catch (err) {
      source.destroy();
      await rm(temp, { force: true });
      throw err;
    }
  }

  private partsDir(id: string): string {
    return join(this.root, 'parts', id);
  }

  private partPath(id: string, index: number): string {
    return join(this.partsDir(id), `${index}.part`);
  }

  private objectPath(id: string): string {
    return join(this.root, 'objects', id.slice(0, 2), id);
  }
}
