import { createHash, randomBytes } from 'node:crypto';
import { crc32 as zlibCrc32 } from 'node:zlib';

/**
 * Key format (API.md section 3): `spk_` + 30 random base62 characters + 6-character base62
 * checksum (CRC-32 of the random part). Malformed keys are refused without a database round trip,
 * and leaked keys are easy to scan for.
 */
export const KEY_PREFIX = 'spk_';
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const BODY_LENGTH = 30;
const CHECKSUM_LENGTH = 6;
const KEY_PATTERN = new RegExp(`^${KEY_PREFIX}[0-9A-Za-z]{${BODY_LENGTH + CHECKSUM_LENGTH}}$`);
const DISPLAY_PREFIX_LENGTH = KEY_PREFIX.length + 8;

/** CRC-32 (ISO 3309, as zlib) of the text's UTF-8 bytes. */
export function crc32(text: string): number {
  return zlibCrc32(text);
}

function toBase62(value: number, width: number): string {
  let out = '';
  let v = value;
  for (let i = 0; i < width; i++) {
    out = ALPHABET[v % 62] + out;
    v = Math.floor(v / 62);
  }
  return out;
}

export function checksum(body: string): string {
  return toBase62(crc32(body), CHECKSUM_LENGTH);
}

function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += ALPHABET[byte % 62]; // 248 = 4*62: no modulo bias
    }
  }
  return out;
}

export function generateApiKey(): string {
  const body = randomBase62(BODY_LENGTH);
  return `${KEY_PREFIX}${body}${checksum(body)}`;
}

/** Shape and checksum only; says nothing about whether the key exists. */
export function isWellFormedApiKey(key: string): boolean {
  if (!KEY_PATTERN.test(key)) return false;
  const body = key.slice(KEY_PREFIX.length, KEY_PREFIX.length + BODY_LENGTH);
  return checksum(body) === key.slice(KEY_PREFIX.length + BODY_LENGTH);
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

export function displayPrefix(key: string): string {
  return key.slice(0, DISPLAY_PREFIX_LENGTH);
}
