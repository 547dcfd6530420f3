import { OutboundHttp, parseJsonBody } from '../../common/http/outbound-http';
import {
  ApiResponse,
  BearerRequest,
  CallKind,
  clipErrorText,
  mapHttpFailure,
  mapThrown,
  retryAfterSeconds,
  sendWithBearer,
} from '../provider-http.util';
import { asObject, asString } from '../provider-json.util';
import {
  ContentRejectedError,
  CredentialsRevokedError,
  ProviderError,
  TransientProviderError,
} from '../provider.errors';
import type { TikTokCredentials } from './tiktok.credentials';

export const TIKTOK_NAME = 'TikTok';

/**
 * TikTok refused the post because the app has not passed TikTok's audit: such an app may post only
 * SELF_ONLY, to private accounts, for a few users a day. Not retried: the operator must act.
 */
export class TikTokAuditRequiredError extends ContentRejectedError {}

/** TikTok v2's error object: `{error: {code, message, log_id}}`, `code` "ok" on success. */
export function tiktokError(data: unknown): { code: string; message: string; logId: string | null } {
  const error = asObject(asObject(data)?.error);
  return {
    code: asString(error?.code) ?? '',
    message: asString(error?.message) ?? '',
    logId: asString(error?.log_id) ?? null,
  };
}

const AUDIT_MESSAGES: Record<string, string> = {
  unaudited_client_can_only_post_to_private_accounts:
    'TikTok lets an app that has not passed its audit post only with privacyLevel SELF_ONLY, to accounts set to private. ' +
    'Set the TikTok account to private and post SELF_ONLY, or have the TikTok app audited (developers.tiktok.com, Content Posting API) to post publicly',
  reached_active_user_cap:
    'TikTok caps how many users of an app that has not passed its audit may post in 24 hours (5). ' +
    'Wait a day, or have the TikTok app audited (developers.tiktok.com, Content Posting API)',
};

const REFUSALS: Record<string, string> = {
  privacy_level_option_mismatch:
    "the privacy level is not one of the creator's options (creator_info privacy_level_options)",
  spam_risk_too_many_posts: 'the account reached its daily post limit',
  spam_risk_user_banned_from_posting: 'the account is banned from posting',
  spam_risk_too_many_pending_share: 'the account has too many posts waiting to be processed',
  url_ownership_unverified:
    "the media URL's domain is not verified for this TikTok app: verify the domain of PUBLIC_BASE_URL with TikTok (photo posts always need it; for videos, or set TIKTOK_PULL_FROM_URL=false)",
};

/** Maps an answer with a TikTok error (any status) to the adapter contract. */
export function mapTikTokFailure(res: ApiResponse, kind: CallKind): ProviderError {
  const { code, message, logId } = tiktokError(res.data);
  const detail = `${code}${message ? `: ${clipErrorText(message)}` : ''}${logId ? ` (log_id ${logId})` : ''}`;
  if (AUDIT_MESSAGES[code]) return new TikTokAuditRequiredError(`${AUDIT_MESSAGES[code]} [${detail}]`, res.status);
  if (REFUSALS[code])
    return new ContentRejectedError(`TikTok refused the post: ${REFUSALS[code]} [${detail}]`, res.status);
  if (code === 'access_token_invalid' || code === 'scope_not_authorized' || code === 'scope_permission_missed') {
    return new CredentialsRevokedError(`TikTok no longer accepts the stored authorization [${detail}]`, res.status);
  }
  if (code === 'rate_limit_exceeded' || res.status === 429) {
    return new TransientProviderError(
      `TikTok rate limit reached [${detail}]`,
      429,
      retryAfterSeconds(res.headers) ?? 60,
    );
  }
  return mapHttpFailure(TIKTOK_NAME, res.status, res.headers, detail, kind);
}

/** Thin client of TikTok's v2 Open API bound to one access token. */
export class TikTokApi {
  constructor(
    private readonly http: OutboundHttp,
    private readonly credentials: TikTokCredentials,
  ) {}

  send(req: BearerRequest): Promise<ApiResponse> {
    return sendWithBearer(this.http, TIKTOK_NAME, this.credentials.apiBaseUrl, this.credentials.accessToken, req);
  }

  /** A JSON call whose answer must be 2xx with error code "ok"; returns `data`. */
  async call(req: BearerRequest, kind: CallKind): Promise<Record<string, unknown>> {
    const res = await this.send({ ...req, headers: { ...req.headers } });
    const ok = res.status >= 200 && res.status < 300 && (tiktokError(res.data).code || 'ok') === 'ok';
    if (!ok) throw mapTikTokFailure(res, kind);
    return asObject(asObject(res.data)?.data) ?? {};
  }

  /**
   * status/fetch. TikTok sends `publicaly_available_post_id` as int64 JSON numbers, which lose digits
   * as doubles: the ids are read from the raw text.
   */
  async status(publishId: string): Promise<{ res: ApiResponse; postIds: string[] }> {
    let raw;
    try {
      raw = await this.http.request({
        method: 'POST',
        url: `${this.credentials.apiBaseUrl}/v2/post/publish/status/fetch/`,
        headers: {
          accept: 'application/json',
          authorization: `Bearer ${this.credentials.accessToken}`,
          'content-type': 'application/json; charset=UTF-8',
        },
        body: JSON.stringify({ publish_id: publishId }),
      });
    } catch (err) {
      throw mapThrown(TIKTOK_NAME, err);
    }
    const list = /"publicaly_available_post_id"\s*:\s*\[([^\]]*)\]/.exec(raw.body.toString('utf8'))?.[1] ?? '';
    const postIds = [...list.matchAll(/"?(\d+)"?/g)].map((m) => m[1]);
    return { res: { status: raw.status, headers: raw.headers, data: parseJsonBody(raw.body) }, postIds };
  }

  /** PUTs one chunk to the upload URL TikTok returned (no token: the URL carries the upload's authority). */
  async putChunk(
    uploadUrl: string,
    mimeType: string,
    body: Buffer,
    first: number,
    last: number,
    total: number,
  ): Promise<ApiResponse> {
    try {
      const res = await this.http.request({
        method: 'PUT',
        url: uploadUrl,
        headers: {
          'content-type': mimeType,
          'content-length': String(body.length),
          'content-range': `bytes ${first}-${last}/${total}`,
        },
        body,
        timeoutMs: 120_000,
      });
      return { status: res.status, headers: res.headers, data: parseJsonBody(res.body) };
    } catch (err) {
      throw mapThrown(TIKTOK_NAME, err);
    }
  }
}
