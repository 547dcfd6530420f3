import { OutboundHeaders, OutboundHttp, parseJsonBody } from '../../common/http/outbound-http';
import {
  ApiResponse,
  BearerRequest,
  CallKind,
  clipErrorText,
  mapHttpFailure,
  mapThrown,
  sendWithBearer,
} from '../provider-http.util';
import { asArray, asObject, asString } from '../provider-json.util';
import { ProviderError, TransientProviderError } from '../provider.errors';
import type { YouTubeCredentials } from './youtube.credentials';
import type { YouTubeQuotaLedger } from './youtube-quota';

export const YOUTUBE_NAME = 'YouTube';

/** Google's error body: `{error: {code, message, errors: [{domain, reason, message}]}}`. */
export function googleError(data: unknown): { reason: string | null; message: string } {
  const error = asObject(asObject(data)?.error);
  const first = asObject(asArray(error?.errors)?.[0]);
  return {
    reason: asString(first?.reason) ?? null,
    message: asString(error?.message) ?? asString(first?.message) ?? '',
  };
}

/** Reasons for which Google refuses a call because a daily quota is spent. */
const QUOTA_REASONS = new Set(['quotaExceeded', 'dailyLimitExceeded', 'uploadLimitExceeded']);
/** Reasons of short-term throttling, retried soon. */
const RATE_REASONS = new Set(['rateLimitExceeded', 'userRateLimitExceeded', 'backendError']);

/** Maps a non-2xx answer: quota refusals to YouTubeQuotaExhaustedError (through the ledger), then the usual mapping. */
export function mapYouTubeFailure(res: ApiResponse, kind: CallKind, quota: YouTubeQuotaLedger): ProviderError {
  const { reason, message } = googleError(res.data);
  if (res.status === 403 && reason && QUOTA_REASONS.has(reason)) {
    return quota.exhausted(
      reason === 'uploadLimitExceeded'
        ? `the channel reached its upload limit: ${message}`
        : `${reason}: ${clipErrorText(message)}`,
    );
  }
  if (res.status === 403 && reason && RATE_REASONS.has(reason)) {
    return new TransientProviderError(`YouTube rate limit reached: ${reason}`, 403, 60, true);
  }
  const text = [reason, message].filter(Boolean).join(': ');
  return mapHttpFailure(YOUTUBE_NAME, res.status, res.headers, text, kind);
}

const header = (headers: OutboundHeaders, name: string): string | undefined => {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
};

/** The next byte to send after a 308 Resume Incomplete: `Range: bytes=0-N` gives N + 1, no Range 0. */
export function nextOffset(headers: OutboundHeaders): number {
  const range = /bytes=0-(\d+)/.exec(header(headers, 'range') ?? '');
  return range ? Number(range[1]) + 1 : 0;
}

/** Thin client of the YouTube Data API v3 and its upload endpoints, bound to one access token. */
export class YouTubeApi {
  constructor(
    private readonly http: OutboundHttp,
    private readonly credentials: YouTubeCredentials,
    readonly quota: YouTubeQuotaLedger,
  ) {}

  send(req: BearerRequest): Promise<ApiResponse> {
    return sendWithBearer(this.http, YOUTUBE_NAME, this.credentials.apiBaseUrl, this.credentials.accessToken, req);
  }

  /** Like send(), a non-2xx answer thrown as the matching provider error; counts `units` of quota. */
  async call(req: BearerRequest, kind: CallKind, units: number): Promise<ApiResponse> {
    const res = await this.send(req);
    this.quota.spend(units);
    if (res.status < 200 || res.status >= 300) throw mapYouTubeFailure(res, kind, this.quota);
    return res;
  }

  /**
   * A request to a resumable session URI. The access token goes along only when the URI is on
   * Google's upload host or the configured API host.
   */
  async session(
    uri: string,
    headers: Record<string, string>,
    body: Buffer | undefined,
    timeoutMs: number,
  ): Promise<ApiResponse> {
    const all = { ...headers };
    if (this.trusted(uri)) all.authorization = `Bearer ${this.credentials.accessToken}`;
    try {
      const res = await this.http.request({
        method: 'PUT',
        url: uri,
        headers: all,
        body: body ?? Buffer.alloc(0),
        timeoutMs,
      });
      return { status: res.status, headers: res.headers, data: parseJsonBody(res.body) };
    } catch (err) {
      throw mapThrown(YOUTUBE_NAME, err);
    }
  }

  private trusted(uri: string): boolean {
    let url: URL;
    try {
      url = new URL(uri);
    } catch {
      return false;
    }
    if (url.origin === new URL(this.credentials.apiBaseUrl).origin) return true;
    return url.protocol === 'https:' && (url.hostname === 'googleapis.com' || url.hostname.endsWith('.googleapis.com'));
  }
}
