/**
 * Where uploaded media bytes live. Uploads are modelled as numbered *parts* (the service's chunks) that
 * `complete` joins into one immutable object, so the same contract maps onto S3 multipart upload:
 * begin = CreateMultipartUpload, writePart = UploadPart (part number = index + 1), listParts = ListParts,
 * complete = CompleteMultipartUpload, remove = AbortMultipartUpload + DeleteObject.
 * Bytes are always streamed; no method holds a whole part or object in memory.
 */
import type { Readable } from 'node:stream';

export {
  InvalidMediaKeyError,
  MediaObjectNotFoundError,
  MediaStorageError,
  MissingPartsError,
  PartChecksumMismatchError,
  PartSizeMismatchError,
  PartTooLargeError,
} from './media-storage.errors';

export const MEDIA_STORAGE = Symbol('MEDIA_STORAGE');

/** S3 multipart rules: every part but the last is at least 5 MiB, at most 5 GiB, at most 10,000 parts. */
export const S3_MIN_PART_SIZE = 5 * 1024 * 1024;
export const S3_MAX_PART_SIZE = 5 * 1024 * 1024 * 1024;
export const S3_MAX_PART_COUNT = 10_000;

/** Constraints the service must respect when it picks chunkSize/totalChunks at initialize. */
export interface MediaStorageLimits {
  /** Every part except the last must have at least this many bytes. */
  readonly minPartSize: number;
  readonly maxPartSize: number;
  /** Part indexes run 0..maxPartCount-1. */
  readonly maxPartCount: number;
}

export interface WritePartOptions {
  /**
   * Where the part starts in the final object (index x chunk size). Local disk writes the part there,
   * in one file per upload, so finalize never copies the bytes; S3 numbers parts and ignores it.
   */
  offset: number;
  /** Stop reading and throw `PartTooLargeError` once more than this many bytes arrive. */
  maxBytes: number;
  /** When known (it is: chunkSize, or the remainder for the last chunk), a part of any other size is refused. */
  expectedBytes?: number;
  /** Lower-case hex; a part with another digest is refused (S3: x-amz-checksum-sha256 on UploadPart). */
  expectedSha256?: string;
  /**
   * Hash the part even when no `expectedSha256` is given (default true). False skips SHA-256 (about 1 ms of CPU
   * per MiB) for callers that never read a part's digest; the result's `sha256` is then null.
   */
  computeSha256?: boolean;
}

export interface StoredDigest {
  size: number;
  /** Lower-case hex SHA-256. */
  sha256: string;
}

/** What `writePart` stored: `sha256` is null when the part was not hashed (`computeSha256: false`). */
export interface StoredPart {
  size: number;
  sha256: string | null;
}

/** What `open` reads: the original object or a derived file (a variant), whole or a byte range. */
export interface ReadOptions {
  /** A derived file of the item (`jpeg`, `png`, `webp`), stored with `writeVariant`; absent: the original. */
  variant?: string;
  /** Inclusive byte offsets, both within the file. */
  range?: { start: number; end: number };
}

/** A presigned GET of an object, for drivers whose objects can be fetched without the service. */
export interface PresignOptions {
  variant?: string;
  /** How long the URL works (at least 1 s). */
  expiresInSeconds: number;
  /** The Content-Type the download is to carry. */
  contentType: string;
}

export interface MediaStorage {
  readonly limits: MediaStorageLimits;

  /**
   * Prepares an upload (S3: CreateMultipartUpload) before its first part is written. Idempotent:
   * concurrent first chunks may both call it.
   */
  begin(mediaId: string): Promise<void>;

  /**
   * Streams one part into place, replacing any earlier copy: concurrent writers of the same part (in one
   * process) leave exactly one of their versions, never a mix, and a refused re-send keeps the earlier
   * copy. Throws `PartTooLargeError`, `PartSizeMismatchError` or `PartChecksumMismatchError` (the part
   * is then not stored) or the stream's own error.
   */
  writePart(mediaId: string, index: number, data: Readable, opts: WritePartOptions): Promise<StoredPart>;

  /** Forgets one part; no error if absent. Not available on S3 (parts can only be overwritten). */
  deletePart(mediaId: string, index: number): Promise<void>;

  /** Indexes of the parts stored so far, ascending. */
  listParts(mediaId: string): Promise<number[]>;

  /**
   * Joins parts 0..partCount-1 in order into the final object and drops the parts; returns the object's
   * size and SHA-256. Idempotent and crash-safe: once the object exists, calling again re-hashes it.
   * Throws `MissingPartsError` when parts are absent and no object was produced yet.
   */
  complete(mediaId: string, partCount: number): Promise<StoredDigest>;

  /**
   * Streams the final object (or a variant, or a byte range of either); the stream errors with
   * `code: 'ENOENT'` if it does not exist.
   */
  open(mediaId: string, opts?: ReadOptions): Readable;

  /**
   * Stores a derived file of the item under `variant`, replacing any earlier one atomically: readers see
   * the old or the new bytes, never a mix. `remove` of the item does not know its variants: remove them first.
   */
  writeVariant(mediaId: string, variant: string, data: Buffer): Promise<void>;

  /**
   * Like `writeVariant`, from a file on local disk (a converted video), streamed: never held in memory.
   */
  writeVariantFile(mediaId: string, variant: string, path: string): Promise<void>;

  /**
   * The path of the final object (or a variant) on this machine's disk, for drivers that keep one (local
   * disk), so programs such as ffprobe read it in place; absent for remote storage (S3): copy it first.
   */
  localPath?(mediaId: string, variant?: string): string;

  /** Deletes one derived file; no error if absent. */
  removeVariant(mediaId: string, variant: string): Promise<void>;

  /** A URL that downloads the object (or a variant) directly, when the driver can give one (S3). */
  presignGet?(mediaId: string, opts: PresignOptions): Promise<string>;

  /** Up to `bytes` leading bytes of the final object (fewer if it is shorter); `MediaObjectNotFoundError` if absent. */
  readHead(mediaId: string, bytes: number): Promise<Buffer>;

  /** Size of the final object, or null if it does not exist. */
  stat(mediaId: string): Promise<{ size: number } | null>;

  /** Deletes the final object, every part and any unfinished upload; no error if absent. */
  remove(mediaId: string): Promise<void>;

  /** Resolves when the storage is reachable and usable (readiness probe); rejects otherwise. */
  ping(): Promise<void>;
}
