/**
 * `MediaStorage` on a local directory:
 *   <root>/parts/<mediaId>/data              the object being assembled: each part written at its offset
 *   <root>/parts/<mediaId>/<index>.part      marker "<offset> <size> <crc32>": part <index> was written whole
 *                                            into `data`, and these are its bytes' CRC-32
 *   <root>/objects/<first2>/<mediaId>        completed objects
 *   <root>/variants/<first2>/<mediaId>/<v>   derived files of an object (e.g. `jpeg`), written to a temp file and renamed
 * A part's first copy streams straight into `data` at its offset, then is marked, so completing an
 * upload only reads `data` once and renames it (no copy of the bytes). Parts are not flushed to disk
 * one by one: `complete` flushes `data` once, and while it hashes the file it checks every part's
 * range against the CRC-32 in its marker. A part lost after it was acknowledged (a machine crash
 * before the page cache reached the disk, a failed write-back, another writer over its range) is
 * then reported missing (MissingPartsError), so the client sends it again; the object is never made
 * of bytes nobody sent (docs/adr/0004). A re-send of a part that is already marked is staged in a temp
 * file first, so a refused re-send keeps the stored copy. A failed write unmarks its part: the bytes
 * at that range are then unknown, and `complete` reports the part missing until it is sent again.
 * Writers of the same part in one process take turns.
 */
import { createHash, randomUUID, type Hash } from 'node:crypto';
import { constants, createReadStream } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { access, copyFile, mkdir, open, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { Readable, Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { crc32 } from 'node:zlib';
import {
  assertByteCount,
  assertByteRange,
  assertMediaId,
  assertPartCount,
  assertPartIndex,
  assertSha256Hex,
  assertVariant,
} from './media-key.util';
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
  type ReadOptions,
  type StoredDigest,
  type StoredPart,
  type WritePartOptions,
} from './media-storage.interface';

const PART_FILE_PATTERN = /^(\d+)\.part$/;
/** Read size when hashing a finished object (fewer, larger reads than the 64 KiB default). */
const HASH_READ_BYTES = 1024 * 1024;

function isNotFound(err: unknown): boolean {
  return (err as NodeJS.ErrnoException | null)?.code === 'ENOENT';
}

/** Flushes a file's data to disk (any descriptor of the file will do: the flush is per file). */
async function fsyncFile(path: string): Promise<void> {
  const handle = await open(path, 'r+');
  try {
    await handle.datasync();
  } finally {
    await handle.close();
  }
}

/**
 * Flushes a directory's entries (a rename or a new file in it) to disk. File systems that cannot sync a
 * directory (EINVAL, EISDIR) keep their entries by their own journal.
 */
async function fsyncDirectory(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'EINVAL' && code !== 'EISDIR') throw err;
  } finally {
    await handle.close();
  }
}

/**
 * Passes bytes through while counting them and taking their CRC-32 (for the part's marker), optionally
 * hashing them (SHA-256); fails once more than `maxBytes` arrive.
 */
class DigestMeter extends Transform {
  size = 0;
  /** CRC-32 of the bytes so far (about 0.3 ms of CPU per MiB, a quarter of SHA-256). */
  crc32 = 0;
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
    this.crc32 = crc32(chunk, this.crc32);
    this.hash?.update(chunk);
    callback(null, chunk);
  }

  digest(): StoredPart {
    return { size: this.size, sha256: this.hash ? this.hash.digest('hex') : null };
  }
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

/** Where a part's bytes are in `data`, and their CRC-32. */
interface Marker {
  offset: number;
  size: number;
  /**
   * Null in markers written before parts carried a checksum: those parts were flushed to disk before
   * they were marked, so their range is trusted as it is.
   */
  crc32: number | null;
}

function markerText(offset: number, size: number, crc: number): string {
  return `${offset} ${size} ${crc.toString(16).padStart(8, '0')}`;
}

/** A part's marker; null when the part is not (or no longer) stored. */
async function readMarker(path: string): Promise<Marker | null> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if (isNotFound(err)) return null;
    throw err;
  }
  const match = /^(\d+) (\d+)(?: ([0-9a-f]{8}))?$/.exec(text);
  if (!match) return null;
  return { offset: Number(match[1]), size: Number(match[2]), crc32: match[3] ? parseInt(match[3], 16) : null };
}

async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch (err) {
    if (isNotFound(err)) return false;
    throw err;
  }
}

/** Size and SHA-256 of a file, read in large blocks. */
async function hashFile(path: string): Promise<StoredDigest> {
  return (await digestParts(path, [])).digest;
}

/**
 * Size and SHA-256 of a file and, in the same read, the CRC-32 of each of `parts` (contiguous ranges
 * from offset 0, in order), read in large blocks.
 */
async function digestParts(
  path: string,
  parts: ReadonlyArray<{ offset: number; size: number }>,
): Promise<{ digest: StoredDigest; crcs: number[] }> {
  const hash = createHash('sha256');
  const crcs = parts.map(() => 0);
  let position = 0;
  let part = 0;
  for await (const block of createReadStream(path, { highWaterMark: HASH_READ_BYTES })) {
    const bytes = block as Buffer;
    hash.update(bytes);
    let at = 0;
    while (at < bytes.length && part < parts.length) {
      const end = parts[part].offset + parts[part].size;
      const take = Math.min(bytes.length - at, end - (position + at));
      if (take > 0) crcs[part] = crc32(bytes.subarray(at, at + take), crcs[part]);
      at += Math.max(take, 0);
      if (position + at >= end) part++;
    }
    position += bytes.length;
  }
  return { digest: { size: position, sha256: hash.digest('hex') }, crcs };
}

/** Runs tasks with the same key one after another (in this process); different keys run freely. */
class KeyedLock {
  private readonly tails = new Map<string, Promise<unknown>>();

  async run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const current = previous.then(task, task);
    const tail = current.catch(() => undefined);
    this.tails.set(key, tail);
    try {
      return await current;
    } finally {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }
}

export class LocalDiskStorage implements MediaStorage {
  /** Same part rules as S3 except the minimum size, so small chunks work in development and tests. */
  readonly limits: MediaStorageLimits = {
    minPartSize: 1,
    maxPartSize: S3_MAX_PART_SIZE,
    maxPartCount: S3_MAX_PART_COUNT,
  };
  private readonly root: string;
  private readonly partLocks = new KeyedLock();

  constructor(rootDir: string) {
    this.root = resolve(rootDir);
  }

  async begin(mediaId: string): Promise<void> {
    await mkdir(this.partsDir(assertMediaId(mediaId)), { recursive: true });
  }

  /** Always consumes or destroys `data`, also when the arguments are refused. */
  async writePart(mediaId: string, index: number, data: Readable, opts: WritePartOptions): Promise<StoredPart> {
    let id: string;
    let offset: number;
    let verify: (digest: StoredPart) => void;
    try {
      id = assertMediaId(mediaId);
      assertPartIndex(index, this.limits.maxPartCount);
      offset = assertByteCount('offset', opts.offset);
      verify = partVerifier(opts);
      await mkdir(this.partsDir(id), { recursive: true });
    } catch (err) {
      data.destroy();
      throw err;
    }
    const hash = opts.computeSha256 !== false || opts.expectedSha256 !== undefined;
    const meter = new DigestMeter(assertByteCount('maxBytes', opts.maxBytes), hash);
    return this.partLocks.run(`${id}/${index}`, async () => {
      const marker = this.partPath(id, index);
      if (await exists(marker)) return this.replacePart(id, index, offset, data, meter, verify);
      try {
        await this.writeAt(id, offset, data, meter);
        const digest = meter.digest();
        verify(digest);
        await writeFile(marker, markerText(offset, digest.size, meter.crc32));
        return digest;
      } catch (err) {
        data.destroy();
        // Part of the range may hold these bytes now. Another process writing the same part may have
        // marked it meanwhile: unmark, so `complete` asks for the part again rather than trust the range.
        await rm(marker, { force: true });
        throw err;
      }
    });
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

  open(mediaId: string, opts: ReadOptions = {}): Readable {
    const id = assertMediaId(mediaId);
    const path = opts.variant === undefined ? this.objectPath(id) : this.variantPath(id, assertVariant(opts.variant));
    return createReadStream(path, opts.range ? assertByteRange(opts.range) : {});
  }

  async writeVariant(mediaId: string, variant: string, data: Buffer): Promise<void> {
    const id = assertMediaId(mediaId);
    const target = this.variantPath(id, assertVariant(variant));
    await mkdir(dirname(target), { recursive: true });
    const temp = `${target}.${randomUUID()}.tmp`;
    try {
      await writeFile(temp, data, { flag: 'wx' });
      await fsyncFile(temp);
      await rename(temp, target);
    } catch (err) {
      await rm(temp, { force: true });
      throw err;
    }
  }

  async writeVariantFile(mediaId: string, variant: string, path: string): Promise<void> {
    const id = assertMediaId(mediaId);
    const target = this.variantPath(id, assertVariant(variant));
    await mkdir(dirname(target), { recursive: true });
    const temp = `${target}.${randomUUID()}.tmp`;
    try {
      await copyFile(path, temp);
      await fsyncFile(temp);
      await rename(temp, target);
    } catch (err) {
      await rm(temp, { force: true });
      throw err;
    }
  }

  localPath(mediaId: string, variant?: string): string {
    const id = assertMediaId(mediaId);
    return variant === undefined ? this.objectPath(id) : this.variantPath(id, assertVariant(variant));
  }

  async removeVariant(mediaId: string, variant: string): Promise<void> {
    await rm(this.variantPath(assertMediaId(mediaId), assertVariant(variant)), { force: true });
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
    await rm(this.variantsDir(id), { recursive: true, force: true });
  }

  /** The root directory exists (created if missing) and is writable. */
  async ping(): Promise<void> {
    await mkdir(this.root, { recursive: true });
    await access(this.root, constants.W_OK);
  }

  private async completeOnce(id: string, partCount: number): Promise<StoredDigest> {
    const found = await Promise.all(
      Array.from({ length: partCount }, (_, index) => readMarker(this.partPath(id, index))),
    );
    const missing = found.flatMap((marker, index) => (marker ? [] : [index]));
    if (missing.length === 0 && (await exists(this.dataPath(id)))) {
      const markers = found as Marker[];
      // Every part is marked in `data`: cut it to the parts' end, flush it, check and hash it, move it into place.
      let end = 0;
      for (const [index, marker] of markers.entries()) {
        if (marker.offset !== end) {
          throw new RangeError(`part ${index} starts at ${marker.offset}, but the parts before it end at ${end}`);
        }
        end += marker.size;
      }
      const digest = await this.flushAndCheck(id, markers, end);
      const target = this.objectPath(id);
      const created = await mkdir(dirname(target), { recursive: true });
      await rename(this.dataPath(id), target);
      // The rename, and any folder just created for it, reach the disk before the caller records the item ready.
      for (let dir = dirname(target); ; dir = dirname(dir)) {
        await fsyncDirectory(dir);
        if (created === undefined || dir === dirname(created) || dir === dirname(dir)) break;
      }
      await rm(this.partsDir(id), { recursive: true, force: true });
      return digest;
    }
    if ((await this.stat(id)) === null) {
      throw new MissingPartsError(missing.length ? missing : Array.from({ length: partCount }, (_, i) => i));
    }
    // The object was renamed into place before a crash dropped the parts (or a late part re-created
    // them): finish the cleanup.
    await rm(this.partsDir(id), { recursive: true, force: true });
    return this.hashObject(id);
  }

  /**
   * Flushes `data` (cut to `end`) to disk, once for all its parts, while reading it for its SHA-256 and
   * each part's CRC-32. Parts whose bytes are not those their marker describes are unmarked and reported
   * missing. If the flush fails, no part can be trusted (the page cache may hold bytes the disk lost, and
   * a second flush would not report the error again): every part is unmarked and the error thrown.
   */
  private async flushAndCheck(id: string, markers: Marker[], end: number): Promise<StoredDigest> {
    const handle: FileHandle = await open(this.dataPath(id), 'r+');
    let flushed: Promise<void> | undefined;
    let result: { digest: StoredDigest; crcs: number[] };
    try {
      if ((await handle.stat()).size !== end) await handle.truncate(end);
      flushed = handle.datasync();
      [, result] = await Promise.all([flushed, digestParts(this.dataPath(id), markers)]);
    } catch (err) {
      if (
        flushed &&
        (await flushed.then(
          () => false,
          () => true,
        ))
      ) {
        await Promise.all(markers.map((_, index) => rm(this.partPath(id, index), { force: true })));
      }
      throw err;
    } finally {
      await handle.close();
    }
    const damaged = markers.flatMap((marker, index) =>
      marker.crc32 !== null && marker.crc32 !== result.crcs[index] ? [index] : [],
    );
    if (damaged.length > 0) {
      await Promise.all(damaged.map((index) => rm(this.partPath(id, index), { force: true })));
      throw new MissingPartsError(damaged);
    }
    return result.digest;
  }

  /**
   * Streams `source` through `meter` into `data` at `offset`. Not flushed here: `complete` flushes the
   * file once and checks each part's bytes against its marker.
   */
  private async writeAt(id: string, offset: number, source: Readable, meter: DigestMeter): Promise<void> {
    // The stream closes the handle when it ends or fails (autoClose), which is what pipeline waits for.
    const handle = await open(this.dataPath(id), constants.O_WRONLY | constants.O_CREAT);
    await pipeline(source, meter, handle.createWriteStream({ start: offset }));
  }

  /**
   * A re-send of a stored part: staged and checked in a temp file, then copied over the range. The part
   * is unmarked while its range changes, so a crash in between reads as "send part again".
   */
  private async replacePart(
    id: string,
    index: number,
    offset: number,
    data: Readable,
    meter: DigestMeter,
    verify: (digest: StoredPart) => void,
  ): Promise<StoredPart> {
    const staged = join(this.partsDir(id), `.${index}.${randomUUID()}.tmp`);
    try {
      const digest = await this.writeAtomically(id, `${index}`, staged, data, meter, verify);
      await rm(this.partPath(id, index), { force: true });
      const copy = new DigestMeter(digest.size, false);
      await this.writeAt(id, offset, createReadStream(staged), copy);
      await writeFile(this.partPath(id, index), markerText(offset, digest.size, copy.crc32));
      return digest;
    } finally {
      await rm(staged, { force: true });
    }
  }

  private async hashObject(id: string): Promise<StoredDigest> {
    try {
      return await hashFile(this.objectPath(id));
    } catch (err) {
      throw isNotFound(err) ? new MediaObjectNotFoundError(id) : err;
    }
  }

  /**
   * Streams `source` through `meter` into a fresh temp file under the item's parts directory, lets `verify`
   * veto the result, then renames it to `target`. The temp file is removed on any failure.
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

  private dataPath(id: string): string {
    return join(this.partsDir(id), 'data');
  }

  private partPath(id: string, index: number): string {
    return join(this.partsDir(id), `${index}.part`);
  }

  private objectPath(id: string): string {
    return join(this.root, 'objects', id.slice(0, 2), id);
  }

  private variantsDir(id: string): string {
    return join(this.root, 'variants', id.slice(0, 2), id);
  }

  private variantPath(id: string, variant: string): string {
    return join(this.variantsDir(id), variant);
  }
}
