import type { OutboundHttp } from '../../common/http/outbound-http';
import { ApiResponse, BearerRequest, CallKind, mapHttpFailure, sendWithBearer } from '../provider-http.util';
import { asNumber, asObject, asString } from '../provider-json.util';
import type { ProviderError } from '../provider.errors';
import type { PinterestCredentials } from './pinterest.credentials';

export const PINTEREST_NAME = 'Pinterest';

/** Pinterest's error text: `message` (with its numeric `code`), else nothing. */
export function pinterestErrorText(data: unknown): string {
  const obj = asObject(data);
  const message = asString(obj?.message) ?? '';
  const code = asNumber(obj?.code);
  return message && code !== undefined ? `${message} (code ${code})` : message;
}

/** Maps a non-2xx answer: 401 revoked, 429 and 5xx retried (Retry-After / X-RateLimit-Reset when sent), other 4xx refused. */
export function mapPinterestFailure(res: ApiResponse, kind: CallKind): ProviderError {
  return mapHttpFailure(PINTEREST_NAME, res.status, res.headers, pinterestErrorText(res.data), kind);
}

/** Thin client of Pinterest's REST API v5, bound to one access token. */
export class PinterestApi {
  constructor(
    private readonly http: OutboundHttp,
    private readonly credentials: PinterestCredentials,
  ) {}

  /** Sends `req` to `{apiBaseUrl}/v5{path}`; every status is returned. */
  send(req: BearerRequest): Promise<ApiResponse> {
    return sendWithBearer(this.http, PINTEREST_NAME, this.credentials.apiBaseUrl, this.credentials.accessToken, {
      ...req,
      path: `/v5${req.path}`,
    });
  }

  /** Like send(), but a non-2xx answer is thrown as the matching provider error. */
  async call(req: BearerRequest, kind: CallKind): Promise<ApiResponse> {
    const res = await this.send(req);
    if (res.status < 200 || res.status >= 300) throw mapPinterestFailure(res, kind);
    return res;
  }
}
