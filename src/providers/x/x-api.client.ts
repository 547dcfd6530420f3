import type { OutboundHttp } from '../../common/http/outbound-http';
import { ApiResponse, BearerRequest, CallKind, mapHttpFailure, sendWithBearer } from '../provider-http.util';
import { asObject, asString } from '../provider-json.util';
import type { XCredentials } from './x.credentials';

export const X_NAME = 'X';

export type XResponse = ApiResponse;

/** X's error text: v2 problem `detail`/`title`, or the first of `errors[].message`. */
export function xErrorText(data: unknown): string {
  const obj = asObject(data);
  const first = Array.isArray(obj?.errors) ? asObject(obj.errors[0]) : undefined;
  return asString(obj?.detail) ?? asString(obj?.title) ?? asString(first?.message) ?? asString(first?.detail) ?? '';
}

/** X refuses a post identical to a recent one with 403 and this text. */
export function isDuplicateRefusal(status: number, data: unknown): boolean {
  return status === 403 && /duplicate content/i.test(xErrorText(data));
}

/** Thin X API v2 client bound to one user's OAuth 2.0 access token. */
export class XApi {
  constructor(
    private readonly http: OutboundHttp,
    private readonly credentials: XCredentials,
  ) {}

  /** Sends the request; transport failures are mapped to provider errors, any status is returned. */
  send(req: BearerRequest): Promise<XResponse> {
    return sendWithBearer(this.http, X_NAME, this.credentials.apiBaseUrl, this.credentials.accessToken, req);
  }

  /** Like send(), but a non-2xx answer is thrown as the matching provider error. */
  async call(req: Parameters<XApi['send']>[0], kind: CallKind): Promise<XResponse> {
    const res = await this.send(req);
    if (res.status < 200 || res.status >= 300) {
      throw mapHttpFailure(X_NAME, res.status, res.headers, xErrorText(res.data), kind);
    }
    return res;
  }
}
