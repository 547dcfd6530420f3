/**
 * `MediaStorage` on an S3-compatible object store (AWS S3, MinIO, Ceph, R2, ...), one multipart upload per
 * media item (ADR 0004, "S3 mapping"):
 *   begin / first writePart   CreateMultipartUpload (upload id kept in Postgres, one per item even under races)
 *   writePart(i)              UploadPart number i + 1 with an exact Content-Length; its ETag kept in Postgres
 *   complete(n)               CompleteMultipartUpload with the n recorded ETags, then one streamed GetObject
 *                             computes the object's size and SHA-256 (S3 does not give a whole-object SHA-256)
 *   open / readHead / stat    GetObject / ranged GetObject / HeadObject
 *   remove                    AbortMultipartUpload + DeleteObject
 *   writeVariant / removeVariant   PutObject / DeleteObject of `{prefix}variants/{id}/{variant}`
 *   presignGet                GetObject presigned for the remaining lifetime of a signed media URL
 * A part is checked (size, optional SHA-256) while it streams; the last network chunk is held back until the
 * checks pass, so a refused part never reaches S3 whole: the request is aborted and any earlier copy stays.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat as statFile } from 'node:fs/promises';
import { PassThrough, Readable, Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListPartsCommand,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
  type CompletedPart,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { Logger } from '@nestjs/common';
import type { S3Settings } from '../../config/media.config';
import {
  assertByteCount,
  assertByteRange,
  assertMediaId,
  assertPartCount,
  assertPartIndex,
  assertSha256Hex,
  assertVariant,
} from './media-key.util';
import type { MultipartStateStore } from './media-multipart.store';
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
  S3_MIN_PART_SIZE,
  type MediaStorage,
  type MediaStorageLimits,
  type PresignOptions,
  type ReadOptions,
  type StoredDigest,
  type StoredPart,
  type WritePartOptions,
} from './media-storage.interface';

const sdkLogger = new Logger('S3Client');
const ignore = (): void => undefined;
/** Only the SDK's plain-text lines (objects it logs hold request inputs, bodies included). */
const debugText = (...args: unknown[]): void => {
  const text = args.filter((a) => typeof a === 'string').join(' ');
  if (text) sdkLogger.debug(text);
};

/** Builds the client with checksums only where an operation requires them, so third-party servers work. */
export function createS3Client(s3: S3Settings): S3Client {
  return new S3Client({
    endpoint: s3.endpoint,
    region: s3.region,
    forcePathStyle: s3.forcePathStyle,
    credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    // The SDK logs every call and warns on each aborted upload (how a refused chunk ends); the driver decides
    // what is an error, so the SDK's own lines go to debug.
    logger: { debug: ignore, info: ignore, warn: debugText, error: debugText },
  });
}

function errorName(err: unknown): string {
  return (err as { name?: string } | null)?.name ?? '';
}

function httpStatus(err: unknown): number | undefined {
  return (err as { $metadata?: { httpStatusCode?: number } } | null)?.$metadata?.httpStatusCode;
}

function isMissingObject(err: unknown): boolean {
  return ['NoSuchKey', 'NotFound'].includes(errorName(err)) || httpStatus(err) === 404;
}

/**
 * Counts, optionally hashes and checks a part on its way to S3. The newest chunk is held back until the next
 * one arrives; at the end the checks run first, so S3 receives the full Content-Length only for a good part.
 */
class CheckedPartStream extends Transform {
  size = 0;
  /** Set once the part passed every check (null when it was not hashed). */
  digestHex: string | null = null;
  failure: Error | null = null;
  private held: Buffer | null = null;
  private readonly hash;

  constructor(
    private readonly maxBytes: number,
    private readonly expectedBytes: number,
    private readonly expectedSha256: string | undefined,
    hash: boolean,
  ) {
    super();
    this.hash = hash || expectedSha256 !== undefined ? createHash('sha256') : null;
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.size += chunk.length;
    if (this.size > this.maxBytes) return this.fail(new PartTooLargeError(this.maxBytes), callback);
    if (this.size > this.expectedBytes) {
      return this.fail(new PartSizeMismatchError(this.expectedBytes, this.size), callback);
    }
    this.hash?.update(chunk);
    const previous = this.held;
    this.held = chunk;
    callback(null, previous ?? undefined);
  }

  override _flush(callback: TransformCallback): void {
    if (this.size !== this.expectedBytes) {
      return this.fail(new PartSizeMismatchError(this.expectedBytes, this.size), callback);
    }
    this.digestHex = this.hash ? this.hash.digest('hex') : null;
    if (this.expectedSha256 !== undefined && this.digestHex !== this.expectedSha256) {
      return this.fail(new PartChecksumMismatchError(this.expectedSha256, this.digestHex ?? ''), callback);
    }
    callback(null, this.held ?? undefined);
  }

  private fail(err: Error, callback: TransformCallback): void {
    this.failure = err;
    callback(err);
  }
}

export class S3Storage implements MediaStorage {
  /** S3's own multipart rules: the service never picks a chunk below 5 MiB with this driver. */
  readonly limits: MediaStorageLimits = {
    minPartSize: S3_MIN_PART_SIZE,
    maxPartSize: S3_MAX_PART_SIZE,
    maxPartCount: S3_MAX_PART_COUNT,
  };
  private readonly logger = new Logger(S3Storage.name);

  constructor(
    private readonly client: S3Client,
    private readonly bucket: string,
    private readonly keyPrefix: string,
    private readonly state: MultipartStateStore,
  ) {}

  async begin(mediaId: string): Promise<void> {
    await this.uploadIdFor(assertMediaId(mediaId));
  }

  /** Always consumes or destroys `data`. `opts.expectedBytes` is required: S3 needs the exact Content-Length. */
  async writePart(mediaId: string, index: number, data: Readable, opts: WritePartOptions): Promise<StoredPart> {
    let checked: CheckedPartStream;
    let id: string;
    let uploadId: string;
    let expectedBytes: number;
    try {
      id = assertMediaId(mediaId);
      assertPartIndex(index, this.limits.maxPartCount);
      const maxBytes = assertByteCount('maxBytes', opts.maxBytes);
      if (opts.expectedBytes === undefined) throw new RangeError('The S3 driver needs expectedBytes for every part');
      expectedBytes = assertByteCount('expectedBytes', opts.expectedBytes);
      const expectedSha256 = opts.expectedSha256 === undefined ? undefined : assertSha256Hex(opts.expectedSha256);
      checked = new CheckedPartStream(maxBytes, expectedBytes, expectedSha256, opts.computeSha256 !== false);
      uploadId = await this.uploadIdFor(id);
    } catch (err) {
      data.destroy();
      throw err;
    }

    const abort = new AbortController();
    const piping: Promise<Error | null> = pipeline(data, checked).then(
      () => null,
      (err: unknown) => {
        abort.abort(); // a refused or broken part never completes its Content-Length: S3 stores nothing
        return err instanceof Error ? err : new Error(String(err));
      },
    );
    let etag: string | undefined;
    try {
      const res = await this.client.send(
        new UploadPartCommand({
          Bucket: this.bucket,
          Key: this.key(id),
          UploadId: uploadId,
          PartNumber: index + 1,
          ContentLength: expectedBytes,
          Body: checked,
        }),
        { abortSignal: abort.signal },
      );
      etag = res.ETag;
    } catch (err) {
      data.destroy();
      checked.destroy();
      const sourceError = await piping;
      throw checked.failure ?? sourceError ?? err;
    }
    const sourceError = await piping;
    if (sourceError) throw sourceError;
    if (!etag) throw new Error(`S3 returned no ETag for part ${index + 1} of ${id}`);
    await this.state.recordPart(id, uploadId, index, etag);
    return { size: checked.size, sha256: checked.digestHex };
  }

  async deletePart(mediaId: string, index: number): Promise<void> {
    const id = assertMediaId(mediaId);
    // S3 cannot delete one part; a part left out of CompleteMultipartUpload is discarded by S3.
    await this.state.forgetPart(id, assertPartIndex(index, this.limits.maxPartCount));
  }

  async listParts(mediaId: string): Promise<number[]> {
    const state = await this.state.get(assertMediaId(mediaId));
    return state ? [...state.etags.keys()].sort((a, b) => a - b) : [];
  }

  async complete(mediaId: string, partCount: number): Promise<StoredDigest> {
    const id = assertMediaId(mediaId);
    assertPartCount(partCount, this.limits.maxPartCount);
    const state = await this.state.get(id);
    const missing: number[] = [];
    for (let index = 0; index < partCount; index++) if (!state?.etags.has(index)) missing.push(index);

    if (state?.uploadId && missing.length === 0) {
      const parts: CompletedPart[] = Array.from({ length: partCount }, (_, index) => ({
        PartNumber: index + 1,
        ETag: state.etags.get(index),
      }));
      try {
        await this.completeUpload(id, state.uploadId, parts);
      } catch (err) {
        // An earlier complete finished (and the process died before the database said so): the upload is gone
        // (NoSuchUpload on AWS, other errors elsewhere) but the object is there.
        if ((await this.stat(id)) === null) throw err;
      }
    }
    try {
      return await this.hashObject(id);
    } catch (err) {
      if (err instanceof MediaObjectNotFoundError) {
        throw new MissingPartsError(missing.length > 0 ? missing : Array.from({ length: partCount }, (_, i) => i));
      }
      throw err;
    }
  }

  open(mediaId: string, opts: ReadOptions = {}): Readable {
    const id = assertMediaId(mediaId);
    const key = opts.variant === undefined ? this.key(id) : this.variantKey(id, assertVariant(opts.variant));
    const range = opts.range ? assertByteRange(opts.range) : undefined;
    const out = new PassThrough();
    this.client
      .send(
        new GetObjectCommand({
          Bucket: this.bucket,
          Key: key,
          ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}),
        }),
      )
      .then((res) => pipeline(res.Body as Readable, out))
      .catch((err: unknown) => {
        const failure = isMissingObject(err)
          ? Object.assign(new MediaObjectNotFoundError(id), { code: 'ENOENT' })
          : (err as Error);
        out.destroy(failure);
      });
    return out;
  }

  async writeVariant(mediaId: string, variant: string, data: Buffer): Promise<void> {
    const id = assertMediaId(mediaId);
    await this.client.send(
      new PutObjectCommand({
        Bucket: this.bucket,
        Key: this.variantKey(id, assertVariant(variant)),
        Body: data,
        ContentLength: data.length,
      }),
    );
  }

  async writeVariantFile(mediaId: string, variant: string, path: string): Promise<void> {
    const id = assertMediaId(mediaId);
    const { size } = await statFile(path);
    await this.client.send(
      new PutObjectCommand({
        Bucket: this.bucket,
        Key: this.variantKey(id, assertVariant(variant)),
        Body: createReadStream(path),
        ContentLength: size,
      }),
    );
  }

  async removeVariant(mediaId: string, variant: string): Promise<void> {
    const id = assertMediaId(mediaId);
    await this.client.send(
      new DeleteObjectCommand({ Bucket: this.bucket, Key: this.variantKey(id, assertVariant(variant)) }),
    );
  }

  /** A presigned GetObject that also sets the download's Content-Type (the objects are stored without one). */
  async presignGet(mediaId: string, opts: PresignOptions): Promise<string> {
    const id = assertMediaId(mediaId);
    const key = opts.variant === undefined ? this.key(id) : this.variantKey(id, assertVariant(opts.variant));
    const command = new GetObjectCommand({ Bucket: this.bucket, Key: key, ResponseContentType: opts.contentType });
    return getSignedUrl(this.client, command, { expiresIn: Math.max(1, Math.floor(opts.expiresInSeconds)) });
  }

  async readHead(mediaId: string, bytes: number): Promise<Buffer> {
    const id = assertMediaId(mediaId);
    assertByteCount('bytes', bytes);
    if (bytes === 0) {
      if ((await this.stat(id)) === null) throw new MediaObjectNotFoundError(id);
      return Buffer.alloc(0);
    }
    try {
      const res = await this.client.send(
        new GetObjectCommand({ Bucket: this.bucket, Key: this.key(id), Range: `bytes=0-${bytes - 1}` }),
      );
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of res.Body as Readable) {
        chunks.push(chunk as Buffer);
        size += (chunk as Buffer).length;
        if (size >= bytes) break; // servers that ignore Range send the whole object: stop reading
      }
      return Buffer.concat(chunks).subarray(0, bytes);
    } catch (err) {
      if (isMissingObject(err)) throw new MediaObjectNotFoundError(id);
      if (errorName(err) === 'InvalidRange') return Buffer.alloc(0); // an empty object has no byte 0
      throw err;
    }
  }

  async stat(mediaId: string): Promise<{ size: number } | null> {
    const id = assertMediaId(mediaId);
    try {
      const res = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: this.key(id) }));
      return { size: res.ContentLength ?? 0 };
    } catch (err) {
      if (isMissingObject(err)) return null;
      throw err;
    }
  }

  async remove(mediaId: string): Promise<void> {
    const id = assertMediaId(mediaId);
    const state = await this.state.get(id);
    if (state?.uploadId) await this.abortUpload(id, state.uploadId);
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: this.key(id) }));
  }

  /**
   * Readiness probe: a GET of a key that does not exist must answer NoSuchKey, which proves the server is up,
   * the bucket exists (else NoSuchBucket) and the credentials sign correctly (else 403). No listing permission needed.
   */
  async ping(): Promise<void> {
    try {
      const res = await this.client.send(
        new GetObjectCommand({ Bucket: this.bucket, Key: `${this.keyPrefix}.readiness-probe`, Range: 'bytes=0-0' }),
      );
      (res.Body as Readable | undefined)?.destroy();
    } catch (err) {
      if (errorName(err) !== 'NoSuchKey') throw err;
    }
  }

  // ---- helpers ---------------------------------------------------------------------------------

  private key(id: string): string {
    return `${this.keyPrefix}${id}`;
  }

  private variantKey(id: string, variant: string): string {
    return `${this.keyPrefix}variants/${id}/${variant}`;
  }

  /** The item's multipart upload, created on first use; concurrent first chunks agree on one through Postgres. */
  private async uploadIdFor(id: string): Promise<string> {
    const state = await this.state.get(id);
    if (state === null) throw new MediaObjectNotFoundError(id);
    if (state.uploadId) return state.uploadId;
    const created = await this.client.send(
      new CreateMultipartUploadCommand({ Bucket: this.bucket, Key: this.key(id) }),
    );
    if (!created.UploadId) throw new Error(`S3 returned no UploadId for ${id}`);
    const kept = await this.state.claimUploadId(id, created.UploadId);
    if (kept !== created.UploadId) await this.abortUpload(id, created.UploadId);
    if (kept === null) throw new MediaObjectNotFoundError(id);
    return kept;
  }

  /**
   * CompleteMultipartUpload with the recorded ETags. If two copies of one part raced, the ETag recorded last
   * may not be the copy S3 kept (InvalidPart): then, and only then, ask S3 which ETags it holds and retry once.
   */
  private async completeUpload(id: string, uploadId: string, parts: CompletedPart[]): Promise<void> {
    const send = (list: CompletedPart[]) =>
      this.client.send(
        new CompleteMultipartUploadCommand({
          Bucket: this.bucket,
          Key: this.key(id),
          UploadId: uploadId,
          MultipartUpload: { Parts: list },
        }),
      );
    try {
      await send(parts);
    } catch (err) {
      if (errorName(err) !== 'InvalidPart') throw err;
      const listed = await this.client.send(
        new ListPartsCommand({ Bucket: this.bucket, Key: this.key(id), UploadId: uploadId, MaxParts: parts.length }),
      );
      const held = new Map((listed.Parts ?? []).map((p) => [p.PartNumber, p.ETag]));
      await send(parts.map((p) => ({ PartNumber: p.PartNumber, ETag: held.get(p.PartNumber) ?? p.ETag })));
    }
  }

  /**
   * Best effort: an upload that cannot be aborted here (already completed or aborted, or a server without
   * AbortMultipartUpload) is left to the bucket's lifecycle rule for incomplete uploads.
   */
  private async abortUpload(id: string, uploadId: string): Promise<void> {
    try {
      await this.client.send(
        new AbortMultipartUploadCommand({ Bucket: this.bucket, Key: this.key(id), UploadId: uploadId }),
      );
    } catch (err) {
      if (errorName(err) === 'NoSuchUpload' || httpStatus(err) === 404) return;
      this.logger.warn({ msg: 'Could not abort a multipart upload', mediaId: id, err: errorName(err) });
    }
  }

  /** Streams the object once to compute its size and SHA-256. */
  private async hashObject(id: string): Promise<StoredDigest> {
    let body: Readable;
    try {
      const res = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: this.key(id) }));
      body = res.Body as Readable;
    } catch (err) {
      if (isMissingObject(err)) throw new MediaObjectNotFoundError(id);
      throw err;
    }
    const hash = createHash('sha256');
    let size = 0;
    for await (const chunk of body) {
      hash.update(chunk as Buffer);
      size += (chunk as Buffer).length;
    }
    return { size, sha256: hash.digest('hex') };
  }
}
