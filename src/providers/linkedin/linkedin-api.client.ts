import type { Readable } from 'node:stream';
import { OutboundHttp, parseJsonBody } from '../../common/http/outbound-http';
import {
  ApiResponse,
  BearerRequest,
  CallKind,
  mapHttpFailure,
  mapThrown,
  retryAfterSeconds,
  sendWithBearer,
} from '../provider-http.util';
import { asArray, asObject, asString } from '../provider-json.util';
import { ApiVersionRetiredError, ProviderError, TransientProviderError } from '../provider.errors';
import type { LinkedInCredentials } from './linkedin.credentials';

export const LINKEDIN_NAME = 'LinkedIn';

export type LinkedInResponse = ApiResponse;

/** LinkedIn's error text: `message`, else the first input error's description, else `code`. */
export function linkedInErrorText(data: unknown): string {
  const obj = asObject(data);
  const inputError = asObject(asArray(asObject(obj?.errorDetails)?.inputErrors)?.[0]);
  return asString(obj?.message) ?? asString(inputError?.description) ?? asString(obj?.code) ?? '';
}

/**
 * LinkedIn refuses a post identical to a recent one of the same author with 422 `DUPLICATE_POST`
 * ("Content is a duplicate of urn:li:share:..."). Returns whether it is one, and the URN it names.
 */
export function duplicateRefusal(status: number, data: unknown): { duplicate: boolean; urn: string | null } {
  if (status !== 422) return { duplicate: false, urn: null };
  const obj = asObject(data);
  const codes = (asArray(asObject(obj?.errorDetails)?.inputErrors) ?? []).map((e) => asString(asObject(e)?.code));
  const text = linkedInErrorText(data);
  const duplicate = codes.includes('DUPLICATE_POST') || /duplicate/i.test(text);
  const urn = /(urn:li:(?:share|ugcPost):\d+)/.exec(asString(obj?.message) ?? '')?.[1] ?? null;
  return { duplicate, urn: duplicate ? urn : null };
}

/** The setting of the LinkedIn-Version header (the plugin declares it). */
export const LINKEDIN_VERSION_SETTING = 'LINKEDIN_API_VERSION';

/** Seconds until the next midnight UTC, when LinkedIn's daily limits reset. */
export function secondsUntilUtcMidnight(now: number = Date.now()): number {
  const next = new Date(now);
  next.setUTCHours(24, 0, 0, 0);
  return Math.max(1, Math.ceil((next.getTime() - now) / 1000));
}

/**
 * Maps a non-2xx answer. A 429 waits for Retry-After when LinkedIn sends it, else for the daily
 * reset at midnight UTC (LinkedIn's documented rate-limit window).
 */
export function mapLinkedInFailure(res: LinkedInResponse, kind: CallKind, version?: string): ProviderError {
  const text = linkedInErrorText(res.data);
  if (res.status === 426) {
    return new ApiVersionRetiredError(
      `LinkedIn no longer serves API version ${version ?? '(unknown)'}${text ? ` (${text})` : ''}: ` +
        `set ${LINKEDIN_VERSION_SETTING} to a current version (YYYYMM) and publish again`,
      426,
      LINKEDIN_VERSION_SETTING,
    );
  }
  if (res.status === 429) {
    return new TransientProviderError(
      `LinkedIn rate limit reached${text ? `: ${text}` : ''}`,
      429,
      retryAfterSeconds(res.headers) ?? secondsUntilUtcMidnight(),
    );
  }
  return mapHttpFailure(LINKEDIN_NAME, res.status, res.headers, text, kind);
}

/** Thin client of LinkedIn's versioned REST API (and OpenID userinfo) bound to one access token. */
export class LinkedInApi {
  constructor(
    private readonly http: OutboundHttp,
    private readonly credentials: LinkedInCredentials,
    private readonly version: string,
  ) {}

  /**
   * Sends a request to `apiBaseUrl` + `path` (`/rest/...` calls carry LinkedIn-Version and Rest.li
   * 2.0.0). Transport failures become provider errors; any status is returned.
   */
  send(req: BearerRequest): Promise<LinkedInResponse> {
    const headers = req.path.startsWith('/rest/')
      ? { 'linkedin-version': this.version, 'x-restli-protocol-version': '2.0.0', ...req.headers }
      : req.headers;
    return sendWithBearer(this.http, LINKEDIN_NAME, this.credentials.apiBaseUrl, this.credentials.accessToken, {
      ...req,
      headers,
    });
  }

  /** Like send(), but a non-2xx answer is thrown as the matching provider error. */
  async call(req: Parameters<LinkedInApi['send']>[0], kind: CallKind): Promise<LinkedInResponse> {
    const res = await this.send(req);
    if (res.status < 200 || res.status >= 300) throw mapLinkedInFailure(res, kind, this.version);
    return res;
  }

  /**
   * PUTs an image's bytes to the upload URL the Images API returned. The access token goes along
   * only when that URL is on LinkedIn (or on the configured API host), never to another host.
   */
  async upload(uploadUrl: string, body: Readable, size: number, mimeType: string): Promise<LinkedInResponse> {
    const headers: Record<string, string> = { 'content-type': mimeType, 'content-length': String(size) };
    if (this.trustedUploadHost(uploadUrl)) headers.authorization = `Bearer ${this.credentials.accessToken}`;
    try {
      const res = await this.http.request({ method: 'PUT', url: uploadUrl, headers, body, timeoutMs: 60_000 });
      return { status: res.status, headers: res.headers, data: parseJsonBody(res.body) };
    } catch (err) {
      throw mapThrown(LINKEDIN_NAME, err);
    }
  }

  private trustedUploadHost(uploadUrl: string): boolean {
    let url: URL;
    try {
      url = new URL(uploadUrl);
    } catch {
      return false;
    }
    if (url.origin === new URL(this.credentials.apiBaseUrl).origin) return true;
    return url.protocol === 'https:' && (url.hostname === 'linkedin.com' || url.hostname.endsWith('.linkedin.com'));
  }
}
