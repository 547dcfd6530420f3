import type { Readable } from 'node:stream';
import {
  OutboundBodyError,
  OutboundHeaders,
  OutboundHttp,
  OutboundHttpError,
  OutboundResponseTooLargeError,
  OutboundTimeoutError,
  SsrfBlockedError,
  parseJsonBody,
} from '../common/http/outbound-http';
import { MediaSizeMismatchError } from './media-stream.util';
import {
  ContentRejectedError,
  CredentialsRevokedError,
  MediaRejectedError,
  ProviderError,
  TransientProviderError,
} from './provider.errors';

/** What a failed call was doing, to pick ContentRejectedError or MediaRejectedError for a 4xx. */
export type CallKind = 'content' | 'media';

const MAX_ERROR_TEXT = 300;

function firstHeader(headers: OutboundHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** Seconds until a reset given as epoch seconds (> 1e9), delta seconds, or a date. */
function secondsUntil(value: string, now: number): number | undefined {
  const trimmed = value.trim();
  if (trimmed === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(trimmed)) {
    const n = Number(trimmed);
    return n > 1e9 ? Math.max(0, Math.ceil(n - now / 1000)) : Math.ceil(n);
  }
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - now) / 1000));
}

/**
 * Seconds to wait before retrying, from Retry-After (seconds or HTTP date), Mastodon's
 * X-RateLimit-Reset (ISO 8601 date), X's x-rate-limit-reset or Bluesky's RateLimit-Reset (epoch seconds).
 */
export function retryAfterSeconds(headers: OutboundHeaders, now: number = Date.now()): number | undefined {
  for (const name of ['retry-after', 'x-ratelimit-reset', 'x-rate-limit-reset', 'ratelimit-reset']) {
    const value = firstHeader(headers, name);
    if (value === undefined) continue;
    const seconds = secondsUntil(value, now);
    if (seconds !== undefined) return seconds;
  }
  return undefined;
}

/** Shortens provider error text for messages (never includes request data). */
export function clipErrorText(text: string): string {
  const oneLine = text.replace(/\s+/g, ' ').trim();
  return oneLine.length > MAX_ERROR_TEXT ? `${oneLine.slice(0, MAX_ERROR_TEXT)}…` : oneLine;
}

/** Maps a non-2xx answer (after authentication handling) to the adapter error contract. */
export function mapHttpFailure(
  provider: string,
  status: number,
  headers: OutboundHeaders,
  errorText: string,
  kind: CallKind,
): ProviderError {
  const detail = errorText ? `: ${clipErrorText(errorText)}` : '';
  if (status === 401)
    return new CredentialsRevokedError(`${provider} no longer accepts the stored credentials${detail}`, status);
  if (status === 429) {
    return new TransientProviderError(`${provider} rate limit reached${detail}`, status, retryAfterSeconds(headers));
  }
  if (status >= 500 || status === 408 || status === 425) {
    return new TransientProviderError(
      `${provider} is unavailable (HTTP ${status})${detail}`,
      status,
      retryAfterSeconds(headers),
    );
  }
  if (status >= 300 && status < 400) {
    return new TransientProviderError(`${provider} answered with an unexpected redirect (HTTP ${status})`, status);
  }
  if (kind === 'media') return new MediaRejectedError(`${provider} rejected the media${detail}`, status);
  return new ContentRejectedError(`${provider} rejected the post${detail}`, status);
}

/**
 * Maps errors thrown while calling a provider: provider errors pass through, transport failures
 * become TransientProviderError, a media stream of the wrong size becomes MediaRejectedError.
 * Anything else is rethrown unchanged (a bug, not a provider failure).
 */
export function mapThrown(provider: string, err: unknown): Error {
  if (err instanceof ProviderError) return err;
  if (err instanceof OutboundBodyError && err.cause instanceof MediaSizeMismatchError) {
    return new MediaRejectedError(`The media could not be sent to ${provider}: ${err.cause.message}`);
  }
  if (err instanceof OutboundTimeoutError) return new TransientProviderError(`${provider} did not answer in time`);
  if (err instanceof OutboundResponseTooLargeError) {
    return new TransientProviderError(`${provider} sent an unexpectedly large response`);
  }
  if (err instanceof SsrfBlockedError) {
    return new TransientProviderError(`${provider} address is not allowed: ${err.message}`);
  }
  if (err instanceof OutboundHttpError)
    return new TransientProviderError(`${provider} could not be reached: ${err.message}`);
  return err instanceof Error ? err : new Error(String(err));
}

/** A network's answer: any status, the body parsed as JSON (undefined when it is not JSON). */
export interface ApiResponse {
  status: number;
  headers: OutboundHeaders;
  data: unknown;
}

/** A call of a network's JSON API on behalf of one account. */
export interface BearerRequest {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Appended to the base URL (path and query). */
  path: string;
  /** Sent as JSON. */
  json?: unknown;
  /** Sent as is with `contentType` (default application/octet-stream). */
  body?: Buffer | string | Readable;
  contentType?: string;
  /** Extra headers (API versions and the like). */
  headers?: Record<string, string>;
  timeoutMs?: number;
}

/**
 * Sends `req` to `baseUrl + req.path` with the account's bearer token through the SSRF-guarded client.
 * Transport failures become provider errors named after `network`; every status is returned.
 */
export async function sendWithBearer(
  http: OutboundHttp,
  network: string,
  baseUrl: string,
  accessToken: string,
  req: BearerRequest,
): Promise<ApiResponse> {
  const headers: Record<string, string> = {
    accept: 'application/json',
    authorization: `Bearer ${accessToken}`,
    ...req.headers,
  };
  let body: BearerRequest['body'];
  if (req.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(req.json);
  } else if (req.body !== undefined) {
    headers['content-type'] = req.contentType ?? 'application/octet-stream';
    body = req.body;
  }
  try {
    const res = await http.request({
      method: req.method,
      url: `${baseUrl}${req.path}`,
      headers,
      body,
      timeoutMs: req.timeoutMs,
    });
    return { status: res.status, headers: res.headers, data: parseJsonBody(res.body) };
  } catch (err) {
    throw mapThrown(network, err);
  }
}
