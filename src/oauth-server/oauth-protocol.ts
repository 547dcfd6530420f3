import { createHash } from 'node:crypto';

/**
 * An error of the OAuth protocol (RFC 6749 section 5.2, RFC 7591 section 3.2.2, RFC 8707): its
 * `error` code and description, as the token, registration and revocation endpoints answer them
 * (`{error, error_description}`), or as the authorization endpoint sends them back to the client.
 */
export class OAuthProtocolError extends Error {
  constructor(
    readonly error: string,
    readonly description: string,
    readonly status = 400,
  ) {
    super(description);
    this.name = 'OAuthProtocolError';
  }
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

/**
 * A registrable redirect URI (RFC 8252, OAuth 2.1): absolute, https, or http on a loopback address
 * (native agents listen there), without a fragment or credentials. Returns what is wrong, or null.
 */
export function redirectUriProblem(value: unknown): string | null {
  if (typeof value !== 'string' || value.length === 0) return 'must be a URL';
  if (value.length > 2000) return 'must be at most 2000 characters';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an absolute URL';
  }
  if (url.hash || value.includes('#')) return 'must not have a fragment';
  if (url.username || url.password) return 'must not carry credentials';
  if (url.protocol === 'https:') return null;
  if (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname)) return null;
  return 'must be https, or http on a loopback address (127.0.0.1, [::1], localhost)';
}

/**
 * Whether `given` names the registered `registered`: exactly, or, for http on a loopback address, up
 * to the port (RFC 8252 section 7.3: a native agent listens on whatever port is free at the time).
 */
export function redirectUriMatches(registered: string, given: string): boolean {
  if (registered === given) return true;
  try {
    const a = new URL(registered);
    const b = new URL(given);
    return (
      a.protocol === 'http:' &&
      b.protocol === 'http:' &&
      LOOPBACK_HOSTS.has(a.hostname) &&
      a.hostname === b.hostname &&
      a.pathname === b.pathname &&
      a.search === b.search
    );
  } catch {
    return false;
  }
}

const CHALLENGE = /^[A-Za-z0-9_-]{43}$/;
const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;

/** A well-formed S256 `code_challenge`: the base64url of a SHA-256, 43 characters. */
export function isS256Challenge(challenge: string): boolean {
  return CHALLENGE.test(challenge);
}

/** PKCE (RFC 7636 section 4.6), S256 only: BASE64URL(SHA256(verifier)) equals the challenge. */
export function verifiesChallenge(verifier: string, challenge: string): boolean {
  if (!VERIFIER.test(verifier)) return false;
  return createHash('sha256').update(verifier).digest('base64url') === challenge;
}

/** The URL the browser is sent back to: the redirect URI with these parameters added to its query. */
export function withParams(redirectUri: string, params: Record<string, string | undefined>): string {
  const url = new URL(redirectUri);
  for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.set(k, v);
  return url.toString();
}
