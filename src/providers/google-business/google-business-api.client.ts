import type { OutboundHttp } from '../../common/http/outbound-http';
import {
  ApiResponse,
  BearerRequest,
  CallKind,
  mapHttpFailure,
  retryAfterSeconds,
  sendWithBearer,
} from '../provider-http.util';
import { asArray, asObject, asString } from '../provider-json.util';
import { ProviderError, TransientProviderError } from '../provider.errors';
import type { GoogleBusinessCredentials } from './google-business.credentials';
import { GOOGLE_BUSINESS_QUOTA_WINDOW_SECONDS } from './google-business.limits';

export const GOOGLE_BUSINESS_NAME = 'Google Business Profile';

/** The default API host; with it, each of the three APIs is called on its own Google host. */
export const GOOGLE_BUSINESS_API_HOST = 'https://mybusiness.googleapis.com';

/** The Business Profile APIs this adapter calls, each on its own host at Google. */
export type GoogleBusinessApiName = 'accounts' | 'locations' | 'posts';

const GOOGLE_HOSTS: Record<GoogleBusinessApiName, string> = {
  accounts: 'https://mybusinessaccountmanagement.googleapis.com',
  locations: 'https://mybusinessbusinessinformation.googleapis.com',
  posts: GOOGLE_BUSINESS_API_HOST,
};

/**
 * The host of one API: Google's own host when `apiBaseUrl` is the default, else the configured
 * override, which then serves all three (a test server, a proxy).
 */
export function googleBusinessHost(apiBaseUrl: string, api: GoogleBusinessApiName): string {
  return apiBaseUrl.replace(/\/+$/, '') === GOOGLE_BUSINESS_API_HOST ? GOOGLE_HOSTS[api] : apiBaseUrl;
}

/** Google's error text: `error.message`, with the first validation detail of the v4 API when given. */
export function googleErrorText(data: unknown): string {
  const error = asObject(asObject(data)?.error);
  const message = asString(error?.message) ?? '';
  const status = asString(error?.status);
  const detail = (asArray(error?.details) ?? [])
    .flatMap((d) => asArray(asObject(d)?.errorDetails) ?? [])
    .map((d) => {
      const o = asObject(d);
      const field = asString(o?.field);
      const text = asString(o?.message);
      return text ? (field ? `${field}: ${text}` : text) : undefined;
    })
    .find(Boolean);
  return [status, message, detail].filter(Boolean).join(': ');
}

/** Maps a non-2xx answer; a 429 without Retry-After waits for the next quota minute. */
export function mapGoogleBusinessFailure(res: ApiResponse, kind: CallKind): ProviderError {
  const text = googleErrorText(res.data);
  if (res.status === 429) {
    return new TransientProviderError(
      `${GOOGLE_BUSINESS_NAME} quota exceeded${text ? `: ${text}` : ''}`,
      429,
      retryAfterSeconds(res.headers) ?? GOOGLE_BUSINESS_QUOTA_WINDOW_SECONDS,
    );
  }
  return mapHttpFailure(GOOGLE_BUSINESS_NAME, res.status, res.headers, text, kind);
}

/** Thin client of the Business Profile APIs (Account Management, Business Information, v4 local posts). */
export class GoogleBusinessApi {
  constructor(
    private readonly http: OutboundHttp,
    private readonly credentials: GoogleBusinessCredentials,
  ) {}

  send(api: GoogleBusinessApiName, req: BearerRequest): Promise<ApiResponse> {
    return sendWithBearer(
      this.http,
      GOOGLE_BUSINESS_NAME,
      googleBusinessHost(this.credentials.apiBaseUrl, api),
      this.credentials.accessToken,
      req,
    );
  }

  async call(api: GoogleBusinessApiName, req: BearerRequest, kind: CallKind): Promise<ApiResponse> {
    const res = await this.send(api, req);
    if (res.status < 200 || res.status >= 300) throw mapGoogleBusinessFailure(res, kind);
    return res;
  }
}
