import { createHash, randomBytes } from 'node:crypto';
import { crc32 as zlibCrc32 } from 'node:zlib';

/**
 * Key format (docs/guide.md section 3, ADR 0003): `spk_` + an environment tag (`live_`, `dev_`, `local_`)
 * + 30 random base62 characters + 6-character base62 checksum (CRC-32 of the random part).
 * Malformed keys are refused without a database round trip, leaked keys are easy to scan for, and
 * the tag tells a production key from a development one at a glance. Keys made before
 * environments existed have no tag (`spk_` + 36 characters) and stay valid.
 */
export const KEY_PREFIX = 'spk_';
export const KEY_ENVIRONMENTS = ['production', 'development', 'local'] as const;
export type KeyEnvironment = (typeof KEY_ENVIRONMENTS)[number];

/** The tag each environment's keys carry after `spk_`. */
export const ENVIRONMENT_TAGS: Record<KeyEnvironment, string> = {
  production: 'live_',
  development: 'dev_',
  local: 'local_',
};

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const BODY_LENGTH = 30;
const CHECKSUM_LENGTH = 6;
const KEY_PATTERN = new RegExp(`^${KEY_PREFIX}(live_|dev_|local_)?[0-9A-Za-z]{${BODY_LENGTH + CHECKSUM_LENGTH}}$`);
const DISPLAY_BODY_LENGTH = 8;

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

export function generateApiKey(environment: KeyEnvironment = 'production'): string {
  const body = randomBase62(BODY_LENGTH);
  return `${KEY_PREFIX}${ENVIRONMENT_TAGS[environment]}${body}${checksum(body)}`;
}

/** `spk_live_` etc.: everything before the random part (`spk_` for keys without a tag). */
function headOf(key: string): string {
  return key.slice(0, key.length - BODY_LENGTH - CHECKSUM_LENGTH);
}

/** Shape and checksum only; says nothing about whether the key exists. */
export function isWellFormedApiKey(key: string): boolean {
  if (!KEY_PATTERN.test(key)) return false;
  const start = headOf(key).length;
  return checksum(key.slice(start, start + BODY_LENGTH)) === key.slice(start + BODY_LENGTH);
}

/** The environment a well-formed key's tag names; null for an untagged key of before environments. */
export function environmentOfKey(key: string): KeyEnvironment | null {
  const tag = headOf(key).slice(KEY_PREFIX.length);
  return KEY_ENVIRONMENTS.find((env) => ENVIRONMENT_TAGS[env] === tag) ?? null;
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** The tag plus the first 8 random characters, for recognising a key in lists (`spk_live_AbCd1234`). */
export function displayPrefix(key: string): string {
  return key.slice(0, headOf(key).length + DISPLAY_BODY_LENGTH);
}

/**
 * The Redis key that exists for a while after API key `apiKeyId` was revoked (ApiKeyCache sets it; the
 * rate-limit script checks it on every request, so other instances refuse the key before their cache
 * hears of the revocation).
 */
export function revokedKeyMarker(apiKeyId: string): string {
  return `auth:revoked:${apiKeyId}`;
}

/**
 * The rate-limit bucket of a request (docs/adr/0052): the key's own, or, when the key acts in another
 * workspace of its organization (X-Workspace-Id), one per key and acting workspace, so one noisy
 * customer of a platform cannot starve the others.
 */
export function rateLimitBucketOf(auth: { apiKeyId: string; workspaceId: string; keyWorkspaceId?: string }): string {
  return auth.keyWorkspaceId ? `${auth.apiKeyId}:ws:${auth.workspaceId}` : auth.apiKeyId;
}

/**
 * OAuth tokens (docs/adr/0043): `spo_at_` (access) or `spo_rt_` (refresh) + 30 random base62
 * characters + the 6-character checksum, so a leaked token is as easy to scan for as a key and a
 * malformed one is refused without a database round trip. Only their hashes (hashApiKey) are stored.
 * An access token stands for the OAuth grant's key: the auth path looks it up beside the keys.
 */
export const ACCESS_TOKEN_PREFIX = 'spo_at_';
export const REFRESH_TOKEN_PREFIX = 'spo_rt_';
const OAUTH_TOKEN_PATTERN = /^spo_(at|rt)_[0-9A-Za-z]{36}$/;

export function generateOAuthToken(kind: 'access' | 'refresh'): string {
  const body = randomBase62(BODY_LENGTH);
  return `${kind === 'access' ? ACCESS_TOKEN_PREFIX : REFRESH_TOKEN_PREFIX}${body}${checksum(body)}`;
}

/** Shape and checksum of an OAuth token of this kind; says nothing about whether it exists. */
export function isWellFormedOAuthToken(token: string, kind: 'access' | 'refresh'): boolean {
  const m = OAUTH_TOKEN_PATTERN.exec(token);
  if (!m || m[1] !== (kind === 'access' ? 'at' : 'rt')) return false;
  const start = ACCESS_TOKEN_PREFIX.length;
  return checksum(token.slice(start, start + BODY_LENGTH)) === token.slice(start + BODY_LENGTH);
}
