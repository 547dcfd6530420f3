import type { OutboundHeaders, OutboundHttp } from '../../common/http/outbound-http';
import { ApiResponse, BearerRequest, CallKind, mapHttpFailure, sendWithBearer } from '../provider-http.util';
import { asArray, asNumber, asObject, asString, at } from '../provider-json.util';
import { ContentRejectedError, ProviderError, TransientProviderError } from '../provider.errors';
import type { RedditCredentials } from './reddit.credentials';

export const REDDIT_NAME = 'Reddit';

/** Reddit's error text: `message` (with its `error` status or `reason`), else nothing. */
export function redditErrorText(data: unknown): string {
  const obj = asObject(data);
  const message = asString(obj?.message) ?? asString(obj?.explanation) ?? '';
  const reason = asString(obj?.reason);
  return reason ? `${message} (${reason})`.trim() : message;
}

/** Maps a non-2xx answer: 401 revoked, 429 and 5xx retried (after X-Ratelimit-Reset when sent), other 4xx refused. */
export function mapRedditFailure(res: ApiResponse, kind: CallKind): ProviderError {
  return mapHttpFailure(REDDIT_NAME, res.status, res.headers, redditErrorText(res.data), kind);
}

/** One error of an `api_type=json` answer: `[code, message, field]`. */
export interface RedditApiError {
  code: string;
  message: string;
  field: string | null;
}

/** The errors of an `api_type=json` answer (`json.errors`), empty when there are none. */
export function redditApiErrors(data: unknown): RedditApiError[] {
  const errors = asArray(at(data, 'json', 'errors')) ?? [];
  return errors.flatMap((e) => {
    const parts = asArray(e);
    const code = asString(parts?.[0]);
    return code ? [{ code, message: asString(parts?.[1]) ?? '', field: asString(parts?.[2]) ?? null }] : [];
  });
}

/** Seconds in Reddit's RATELIMIT message ("try again in 9 minutes", "in 30 seconds"). */
export function rateLimitSeconds(message: string): number | undefined {
  const m = /(\d+)\s*(second|minute|hour)/i.exec(message);
  if (!m) return undefined;
  const unit = m[2].toLowerCase();
  return Number(m[1]) * (unit === 'hour' ? 3600 : unit === 'minute' ? 60 : 1);
}

/**
 * Errors Reddit answers in the body of a 200 (`api_type=json`): RATELIMIT is a rate limit to wait
 * out; any other code (SUBREDDIT_NOTALLOWED, SUBMIT_VALIDATION_FLAIR_REQUIRED, NO_SELFS, ...) is the
 * subreddit or Reddit refusing the post, named by its code.
 */
export function apiErrorsFailure(errors: RedditApiError[]): ProviderError {
  const limited = errors.find((e) => e.code === 'RATELIMIT');
  if (limited) {
    return new TransientProviderError(
      `Reddit rate limit reached: ${limited.message}`,
      200,
      rateLimitSeconds(limited.message),
      true,
    );
  }
  const said = errors.map((e) => `${e.code}: ${e.message}${e.field ? ` (${e.field})` : ''}`).join('; ');
  return new ContentRejectedError(`Reddit refused the post: ${said}`, 200);
}

/** The figures of Reddit's rate-limit headers, when sent. */
export function rateLimitHeaders(headers: OutboundHeaders): { remaining?: number; resetSeconds?: number } {
  const read = (name: string) => {
    const raw = headers[name];
    const value = Number(Array.isArray(raw) ? raw[0] : raw);
    return raw === undefined || !Number.isFinite(value) ? undefined : value;
  };
  return { remaining: read('x-ratelimit-remaining'), resetSeconds: read('x-ratelimit-reset') };
}

/**
 * Thin client of Reddit's OAuth API (`oauth.reddit.com`), bound to one access token, sending the
 * User-Agent Reddit requires. It honours Reddit's rate-limit headers: once an answer says no request
 * is left in the window (`X-Ratelimit-Remaining` 0), the next call is not sent and fails as a rate
 * limit to retry after `X-Ratelimit-Reset` seconds.
 */
export class RedditApi {
  private exhaustedUntil = 0;

  constructor(
    private readonly http: OutboundHttp,
    readonly credentials: RedditCredentials,
    private readonly userAgent: string,
  ) {}

  /** Sends `req` to `{apiBaseUrl}{path}`; every status is returned. `form` goes urlencoded. */
  async send(req: BearerRequest & { form?: Record<string, string> }): Promise<ApiResponse> {
    const wait = Math.ceil((this.exhaustedUntil - Date.now()) / 1000);
    if (wait > 0) {
      throw new TransientProviderError(`Reddit rate limit reached: no request left for ${wait} s`, 429, wait, true);
    }
    const { form, ...rest } = req;
    const res = await sendWithBearer(
      this.http,
      REDDIT_NAME,
      this.credentials.apiBaseUrl,
      this.credentials.accessToken,
      {
        ...rest,
        ...(form
          ? { body: new URLSearchParams(form).toString(), contentType: 'application/x-www-form-urlencoded' }
          : {}),
        headers: { 'user-agent': this.userAgent, ...req.headers },
      },
    );
    const { remaining, resetSeconds } = rateLimitHeaders(res.headers);
    if (remaining !== undefined && remaining < 1) this.exhaustedUntil = Date.now() + (resetSeconds ?? 60) * 1000;
    return res;
  }

  /** Like send(), but a non-2xx answer is thrown as the matching provider error. */
  async call(req: BearerRequest & { form?: Record<string, string> }, kind: CallKind): Promise<ApiResponse> {
    const res = await this.send(req);
    if (res.status < 200 || res.status >= 300) throw mapRedditFailure(res, kind);
    return res;
  }

  /** A Listing's children as their `data` objects (`/api/info`, `/user/{name}/submitted`). */
  static children(data: unknown): Record<string, unknown>[] {
    return (asArray(at(data, 'data', 'children')) ?? []).flatMap((c) => {
      const d = asObject(asObject(c)?.data);
      return d ? [d] : [];
    });
  }

  static number(obj: Record<string, unknown> | undefined, name: string): number | null {
    return asNumber(obj?.[name]) ?? null;
  }
}
