import type { OutboundHeaders, OutboundHttp } from '../../common/http/outbound-http';
import { parseJsonBody } from '../../common/http/outbound-http';
import { CallKind, mapHttpFailure, mapThrown } from '../provider-http.util';
import { asObject, asString } from '../provider-json.util';
import type { MastodonCredentials } from './mastodon.credentials';
import type { MultipartBody } from './multipart-body';

export const MASTODON = 'Mastodon';

export interface MastodonResponse {
  status: number;
  headers: OutboundHeaders;
  data: unknown;
}

export interface MastodonRequest {
  method: 'GET' | 'POST';
  path: string;
  json?: unknown;
  multipart?: MultipartBody;
  headers?: Record<string, string>;
  /** Defaults to true (Bearer access token). */
  auth?: boolean;
  timeoutMs?: number;
}

/** Mastodon's error text: `error` plus `error_description` when present (OAuth errors). */
export function mastodonErrorText(data: unknown): string {
  const obj = asObject(data);
  const error = asString(obj?.error) ?? '';
  const description = asString(obj?.error_description);
  return description && description !== error ? `${error} (${description})` : error;
}

/** Thin Mastodon REST client bound to one instance and token. */
export class MastodonApi {
  constructor(
    private readonly http: OutboundHttp,
    private readonly credentials: MastodonCredentials,
  ) {}

  get origin(): string {
    return this.credentials.instanceUrl;
  }

  /** Sends the request; transport failures are thrown as OutboundHttp errors, any status is returned. */
  async send(req: MastodonRequest): Promise<MastodonResponse> {
    const headers: Record<string, string> = { accept: 'application/json', ...req.headers };
    if (req.auth !== false) headers.authorization = `Bearer ${this.credentials.accessToken}`;
    let body: string | MultipartBody['body'] | undefined;
    if (req.multipart) {
      headers['content-type'] = req.multipart.contentType;
      headers['content-length'] = String(req.multipart.contentLength);
      body = req.multipart.body;
    } else if (req.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(req.json);
    }
    const res = await this.http.request({
      method: req.method,
      url: `${this.origin}${req.path}`,
      headers,
      body,
      timeoutMs: req.timeoutMs,
    });
    return { status: res.status, headers: res.headers, data: parseJsonBody(res.body) };
  }

  /** Sends the request and returns a 2xx response; anything else becomes a ProviderError. */
  async call(req: MastodonRequest, kind: CallKind): Promise<MastodonResponse> {
    let res: MastodonResponse;
    try {
      res = await this.send(req);
    } catch (err) {
      if (req.multipart) req.multipart.body.destroy();
      throw mapThrown(MASTODON, err);
    }
    if (res.status < 200 || res.status >= 300) {
      throw mapHttpFailure(MASTODON, res.status, res.headers, mastodonErrorText(res.data), kind);
    }
    return res;
  }
}
