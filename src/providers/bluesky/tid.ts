import { createHash } from 'node:crypto';

/** The base32-sortable alphabet of atproto TIDs. */
const S32 = '234567abcdefghijklmnopqrstuvwxyz';
const TID_RE = /^[234567abcdefghij][234567abcdefghijklmnopqrstuvwxyz]{12}$/;
const MAX_TIMESTAMP_US = (1n << 53n) - 1n;

function s32encode(value: bigint, length: number): string {
  let out = '';
  let rest = value;
  while (rest > 0n) {
    out = S32[Number(rest % 32n)] + out;
    rest /= 32n;
  }
  return out.padStart(length, '2');
}

/** True when `value` is a syntactically valid TID (13 chars, top bit zero). */
export function isValidTid(value: string): boolean {
  return TID_RE.test(value);
}

/** Encodes a TID from microseconds since the epoch (53 bits) and a 10-bit clock id. */
export function tidFromParts(timestampUs: bigint, clockId: number): string {
  if (timestampUs < 0n || timestampUs > MAX_TIMESTAMP_US) throw new RangeError('TID timestamp out of range');
  if (!Number.isInteger(clockId) || clockId < 0 || clockId > 1023) throw new RangeError('TID clock id out of range');
  return s32encode(timestampUs, 11) + s32encode(BigInt(clockId), 2);
}

/** Decodes a TID into its timestamp (microseconds) and clock id. */
export function tidToParts(tid: string): { timestampUs: bigint; clockId: number } {
  if (!isValidTid(tid)) throw new RangeError('Not a valid TID');
  let value = 0n;
  for (const ch of tid) value = value * 32n + BigInt(S32.indexOf(ch));
  return { timestampUs: value >> 10n, clockId: Number(value & 1023n) };
}

/**
 * The record key of a publication: a TID whose timestamp is `createdAt` (millisecond precision) plus
 * a hash-derived offset below one second, and whose clock id also comes from a hash of the idempotency
 * key (30 bits in all). The same (createdAt, key) always gives the same TID; two publications of one
 * account due at the same millisecond collide with probability ~1e-9.
 */
export function deterministicTid(createdAt: Date, idempotencyKey: string): string {
  const ms = createdAt.getTime();
  if (!Number.isFinite(ms) || ms < 0) throw new RangeError('createdAt must be a valid date after 1970');
  const hash = createHash('sha256').update(idempotencyKey, 'utf8').digest();
  const offsetUs = hash.readUInt32BE(0) % 1_000_000;
  const clockId = hash.readUInt16BE(4) & 0x3ff;
  return tidFromParts(BigInt(ms) * 1000n + BigInt(offsetUs), clockId);
}
