/** Typed failures thrown by `MediaStorage` drivers; the media service maps them to HTTP answers. */
export type MediaStorageErrorCode =
  | 'INVALID_MEDIA_KEY'
  | 'PART_TOO_LARGE'
  | 'PART_SIZE_MISMATCH'
  | 'PART_CHECKSUM_MISMATCH'
  | 'MISSING_PARTS'
  | 'MEDIA_OBJECT_NOT_FOUND';

export abstract class MediaStorageError extends Error {
  abstract readonly code: MediaStorageErrorCode;
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** The media id is not a UUID or the part index is not an integer in range (path traversal guard). */
export class InvalidMediaKeyError extends MediaStorageError {
  readonly code = 'INVALID_MEDIA_KEY' as const;
}

/** More than `maxBytes` arrived for one part; nothing was stored and the rest of the stream was not read. */
export class PartTooLargeError extends MediaStorageError {
  readonly code = 'PART_TOO_LARGE' as const;
  constructor(readonly maxBytes: number) {
    super(`Part exceeds ${maxBytes} bytes`);
  }
}

/** The part was shorter or longer than `expectedBytes`; nothing was stored. */
export class PartSizeMismatchError extends MediaStorageError {
  readonly code = 'PART_SIZE_MISMATCH' as const;
  constructor(
    readonly expectedBytes: number,
    readonly actualBytes: number,
  ) {
    super(`Part has ${actualBytes} bytes, expected ${expectedBytes}`);
  }
}

/** The part's SHA-256 differs from `expectedSha256`; nothing was stored. */
export class PartChecksumMismatchError extends MediaStorageError {
  readonly code = 'PART_CHECKSUM_MISMATCH' as const;
  constructor(
    readonly expectedSha256: string,
    readonly actualSha256: string,
  ) {
    super('Part SHA-256 does not match');
  }
}

/** `complete` was called while some parts in 0..partCount-1 are absent and no final object exists. */
export class MissingPartsError extends MediaStorageError {
  readonly code = 'MISSING_PARTS' as const;
  constructor(readonly missing: readonly number[]) {
    super(`Missing parts: ${missing.slice(0, 20).join(', ')}${missing.length > 20 ? ', ...' : ''}`);
  }
}

/** The final object does not exist (never completed, or removed). */
export class MediaObjectNotFoundError extends MediaStorageError {
  readonly code = 'MEDIA_OBJECT_NOT_FOUND' as const;
  constructor(readonly mediaId: string) {
    super(`Media object ${mediaId} not found`);
  }
}
