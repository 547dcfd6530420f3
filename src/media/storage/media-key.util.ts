/** Argument guards shared by storage drivers: ids and indexes become file paths or object keys. */
import { InvalidMediaKeyError } from './media-storage.errors';

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const SHA256_HEX_PATTERN = /^[0-9a-f]{64}$/i;
const VARIANT_PATTERN = /^[a-z0-9]{1,16}$/;

/** Returns the id lower-cased; throws `InvalidMediaKeyError` unless it is a UUID. */
export function assertMediaId(mediaId: unknown): string {
  if (typeof mediaId !== 'string' || !UUID_PATTERN.test(mediaId)) {
    throw new InvalidMediaKeyError('Media id must be a UUID');
  }
  return mediaId.toLowerCase();
}

/** Throws `InvalidMediaKeyError` unless 0 <= index < maxPartCount and index is an integer. */
export function assertPartIndex(index: unknown, maxPartCount: number): number {
  if (typeof index !== 'number' || !Number.isSafeInteger(index) || index < 0 || index >= maxPartCount) {
    throw new InvalidMediaKeyError(`Part index must be an integer in 0..${maxPartCount - 1}`);
  }
  return index;
}

/** Throws `InvalidMediaKeyError` unless 1 <= partCount <= maxPartCount and partCount is an integer. */
export function assertPartCount(partCount: unknown, maxPartCount: number): number {
  if (typeof partCount !== 'number' || !Number.isSafeInteger(partCount) || partCount < 1 || partCount > maxPartCount) {
    throw new InvalidMediaKeyError(`Part count must be an integer in 1..${maxPartCount}`);
  }
  return partCount;
}

/** Throws `RangeError` unless the value is a non-negative safe integer. */
export function assertByteCount(name: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw new RangeError(`${name} must be a non-negative integer`);
  }
  return value;
}

/** Returns the digest lower-cased; throws `RangeError` unless it is 64 hex digits. */
export function assertSha256Hex(value: unknown): string {
  if (typeof value !== 'string' || !SHA256_HEX_PATTERN.test(value)) {
    throw new RangeError('SHA-256 must be 64 hex digits');
  }
  return value.toLowerCase();
}

/** Returns the variant name; throws `InvalidMediaKeyError` unless it is 1-16 lower-case letters or digits. */
export function assertVariant(variant: unknown): string {
  if (typeof variant !== 'string' || !VARIANT_PATTERN.test(variant)) {
    throw new InvalidMediaKeyError('Variant must be 1-16 lower-case letters or digits');
  }
  return variant;
}

/** Returns the range; throws `RangeError` unless 0 <= start <= end, both safe integers. */
export function assertByteRange(range: { start: number; end: number }): { start: number; end: number } {
  const start = assertByteCount('range.start', range.start);
  const end = assertByteCount('range.end', range.end);
  if (end < start) throw new RangeError('range.end must not be before range.start');
  return { start, end };
}
