import type { OutboundHttp } from '../common/http/outbound-http';
import { clipErrorText } from './provider-http.util';
import type { SocialProvider } from './social-provider.interface';

/**
 * One call that revokes an authorization at a network (docs/adr/0052): a form POST to an OAuth
 * revocation endpoint (RFC 7009 and its variants) or a DELETE with the token (Meta's permissions).
 */
export interface RevocationCall {
  method: 'POST' | 'DELETE';
  url: string;
  /** Sent as an `application/x-www-form-urlencoded` body. */
  form?: Record<string, string>;
  /** The app's client credentials as HTTP Basic (X, Reddit). */
  basic?: { id: string; secret: string };
  /** The token itself as `Authorization: Bearer` (Slack). */
  bearer?: string;
  /** Extra headers (Reddit wants a descriptive User-Agent). */
  headers?: Record<string, string>;
}

/** The outbound client's budget for one revocation request; the caller's own limit is the same. */
const REVOCATION_TIMEOUT_MS = 10_000;

/**
 * Sends a revocation through the SSRF-guarded client and resolves once the network answered 2xx.
 * Anything else throws with the network's words (clipped; never the token: it is in the body, not the
 * URL). `accept` may treat a 2xx body as a refusal (Slack answers 200 with `ok: false`).
 */
export async function revokeAt(
  http: OutboundHttp,
  network: string,
  call: RevocationCall,
  accept: (status: number, data: unknown) => boolean = (status) => status >= 200 && status < 300,
): Promise<void> {
  const headers: Record<string, string> = { accept: 'application/json', ...call.headers };
  if (call.basic) {
    const pair = `${encodeURIComponent(call.basic.id)}:${encodeURIComponent(call.basic.secret)}`;
    headers.authorization = `Basic ${Buffer.from(pair).toString('base64')}`;
  }
  if (call.bearer) headers.authorization = `Bearer ${call.bearer}`;
  let body: string | undefined;
  if (call.form) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    body = new URLSearchParams(call.form).toString();
  }
  const res = await http.request({
    method: call.method,
    url: call.url,
    headers,
    body,
    timeoutMs: REVOCATION_TIMEOUT_MS,
  });
  const text = res.body.toString('utf8');
  let data: unknown;
  try {
    data = text ? JSON.parse(text) : undefined;
  } catch {
    data = undefined;
  }
  if (!accept(res.status, data)) {
    throw new Error(
      `${network} did not revoke the authorization (HTTP ${res.status}): ${clipErrorText(text) || 'no detail'}`,
    );
  }
}

/**
 * The app's client id and secret, which revocation endpoints authenticate the app with; an error
 * naming the network when either is not configured (the revocation is then skipped and logged).
 */
export function appCredentials(
  network: string,
  settings: { clientId?: string | null; clientSecret?: string | null },
  names = 'client id and secret',
): { id: string; secret: string } {
  if (!settings.clientId || !settings.clientSecret) {
    throw new Error(`${network} has no ${names} configured to revoke with`);
  }
  return { id: settings.clientId, secret: settings.clientSecret };
}

/**
 * The adapter with `revokeAccess`: `revoke` makes the network's revocation call(s) for stored
 * credentials. Used by plugins whose network offers revocation, in `create`, where the app's client
 * credentials and hosts are known.
 */
export function withRevocation<P extends SocialProvider>(
  provider: P,
  revoke: (credentials: Record<string, unknown>) => Promise<void>,
): P {
  provider.revokeAccess = (credentials) => revoke(credentials);
  return provider;
}

/** A stored token field, when it is a non-empty string. */
export function storedToken(
  credentials: Record<string, unknown>,
  field: 'accessToken' | 'refreshToken',
): string | null {
  const value = credentials[field];
  return typeof value === 'string' && value.length > 0 ? value : null;
}

/** The stored API base URL (OAuth credentials keep it), without a trailing slash. */
export function storedApiBase(credentials: Record<string, unknown>, fallback: string): string {
  const value = credentials.apiBaseUrl;
  return (typeof value === 'string' && value.length > 0 ? value : fallback).replace(/\/+$/, '');
}
