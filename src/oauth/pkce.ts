import { createHash, randomBytes } from 'node:crypto';

/** A PKCE verifier (RFC 7636: 43-128 characters of [A-Za-z0-9-._~]); 32 random bytes, base64url. */
export function newCodeVerifier(): string {
  return randomBytes(32).toString('base64url');
}

/** The S256 challenge of a verifier: base64url(SHA-256(verifier)). */
export function codeChallengeS256(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}

/** A fresh state value (256 bits) and the hash stored in its place. */
export function newState(): { state: string; hash: string } {
  const state = randomBytes(32).toString('base64url');
  return { state, hash: hashState(state) };
}

export function hashState(state: string): string {
  return createHash('sha256').update(state, 'utf8').digest('hex');
}
