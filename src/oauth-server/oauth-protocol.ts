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

/**
 * An `error_description` as RFC 6749 section 5.2 allows it (%x20-21 / %x23-5B / %x5D-7E: printable
 * ASCII without `"` and `\`), at most 500 characters: `\uXXXX` becomes `U+XXXX`, `"` becomes `'`,
 * `\` becomes `/`, anything else outside the set is dropped. A client-supplied value quoted in a
 * message can then never carry a control character into the answer.
 */
export function oauthDescription(text: string): string {
  return text
    .replace(/\\u([0-9a-fA-F]{4})/g, 'U+$1')
    .replace(/"/g, "'")
    .replace(/\\/g, '/')
    .replace(/[^\x20-\x7e]/g, '')
    .slice(0, 500);
}

/** The body of an OAuth error answer (RFC 6749 section 5.2, RFC 7591 section 3.2.2). */
export function oauthErrorBody(error: string, description: string): { error: string; error_description: string } {
  return { error, error_description: oauthDescription(description) };
}

/**
 * The OAuth error of what the API's error filter made of a failure on an OAuth endpoint, before or
 * outside its protocol checks (a body too large, malformed or of the wrong type, a NUL, an unexpected
 * failure): `readError` for a request it could not read (`invalid_client_metadata` at registration,
 * where a refusal of a `redirect_uris` value is `invalid_redirect_uri`; `invalid_request` elsewhere),
 * `too_many_requests` for 429, `temporarily_unavailable` for 503 and `server_error` for other 5xx.
 */
export function oauthErrorOf(
  status: number,
  body: { message: string; details?: ReadonlyArray<{ field: string; message: string }> },
  readError: 'invalid_request' | 'invalid_client_metadata',
): { error: string; error_description: string } {
  const fields = (body.details ?? []).map((d) => d.field).filter(Boolean);
  const description = fields.length ? `${body.message} (${fields.join(', ')})` : body.message;
  let error: string = readError;
  if (status === 503) error = 'temporarily_unavailable';
  else if (status >= 500) error = 'server_error';
  else if (status === 429) error = 'too_many_requests';
  else if (readError === 'invalid_client_metadata' && fields.some((f) => /^redirect_uris(\.|$)/.test(f))) {
    error = 'invalid_redirect_uri';
  }
  return oauthErrorBody(error, description);
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

/** C0 controls, DEL and C1 controls: never part of a URI, and CR/LF would split a header they reach. */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** Whether a client-supplied text holds a control character (C0, DEL or C1). */
export function hasControlCharacter(value: string): boolean {
  return CONTROL.test(value);
}

/**
 * The characters of an RFC 3986 URI: unreserved, reserved and `%` of a percent-encoding. The WHATWG
 * parser behind `new URL` is lenient where a redirect URI must not be: it drops tabs and newlines,
 * trims spaces and controls at either end, reads `\` as `/` and `https:host` as `https://host`, so the
 * raw value is checked before it is parsed, and is stored and echoed only once it passed.
 */
const URI_CHARACTERS = /^[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=%]+$/;

/**
 * A registrable redirect URI (RFC 8252, OAuth 2.1): an absolute URI (RFC 3986 characters only, so no
 * control character, space or backslash), https, or http on a loopback address (native agents listen
 * there), without a fragment or credentials. Returns what is wrong, or null.
 */
export function redirectUriProblem(value: unknown): string | null {
  if (typeof value !== 'string' || value.length === 0) return 'must be a URL';
  if (value.length > 2000) return 'must be at most 2000 characters';
  if (hasControlCharacter(value)) return 'must not contain control characters (such as CR, LF, TAB or NUL)';
  if (!URI_CHARACTERS.test(value)) {
    return 'must be an absolute URI of RFC 3986 characters (no spaces, backslashes or other characters that are not percent-encoded)';
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an absolute URL';
  }
  const secure = url.protocol === 'https:';
  if (!secure && !(url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname))) {
    return 'must be https, or http on a loopback address (127.0.0.1, [::1], localhost)';
  }
  if (!value.toLowerCase().startsWith(`${url.protocol}//`)) return 'must be an absolute URL (scheme://host/path)';
  if (url.hash || value.includes('#')) return 'must not have a fragment';
  if (url.username || url.password) return 'must not carry credentials';
  return null;
}

/**
 * Whether `given` names the registered `registered`: exactly, or, for http on a loopback address, up
 * to the port (RFC 8252 section 7.3: a native agent listens on whatever port is free at the time).
 */
export function redirectUriMatches(registered: string, given: string): boolean {
  if (redirectUriProblem(given) !== null) return false;
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
