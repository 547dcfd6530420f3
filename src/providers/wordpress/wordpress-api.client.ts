import type { Readable } from 'node:stream';
import type { OutboundHttp } from '../../common/http/outbound-http';
import { parseJsonBody } from '../../common/http/outbound-http';
import { ApiResponse, CallKind, clipErrorText, mapHttpFailure, mapThrown } from '../provider-http.util';
import { asObject, asString } from '../provider-json.util';
import { CredentialsRevokedError } from '../provider.errors';
import type { WordpressCredentials } from './wordpress.credentials';

export const WORDPRESS = 'WordPress';

export interface WordpressRequest {
  method: 'GET' | 'POST';
  /** Route under /wp-json, e.g. `/wp/v2/posts?context=edit`. */
  route: string;
  json?: unknown;
  body?: Readable | Buffer;
  contentType?: string;
  contentLength?: number;
  timeoutMs?: number;
}

/** WordPress's error text: `message` and its `code` (`rest_cannot_create`, `rest_invalid_param`). */
export function wordpressErrorText(data: unknown): string {
  const obj = asObject(data);
  const message = asString(obj?.message) ?? '';
  const code = asString(obj?.code);
  return code ? `${message} (${code})` : message;
}

/** The REST API of one site, called as one user with an application password (HTTP Basic). */
export class WordpressApi {
  constructor(
    private readonly http: OutboundHttp,
    private readonly credentials: WordpressCredentials,
  ) {}

  /** Sends the request; transport failures are thrown as OutboundHttp errors, any status is returned. */
  async send(req: WordpressRequest): Promise<ApiResponse> {
    const basic = Buffer.from(`${this.credentials.username}:${this.credentials.applicationPassword}`).toString(
      'base64',
    );
    const headers: Record<string, string> = { accept: 'application/json', authorization: `Basic ${basic}` };
    let body: string | Readable | Buffer | undefined;
    if (req.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(req.json);
    } else if (req.body !== undefined) {
      headers['content-type'] = req.contentType ?? 'application/octet-stream';
      if (req.contentLength !== undefined) headers['content-length'] = String(req.contentLength);
      body = req.body;
    }
    const res = await this.http.request({
      method: req.method,
      url: `${this.credentials.siteUrl}/wp-json${req.route}`,
      headers,
      body,
      timeoutMs: req.timeoutMs,
    });
    return { status: res.status, headers: res.headers, data: parseJsonBody(res.body) };
  }

  /** Sends the request and returns a 2xx answer; anything else becomes a ProviderError. */
  async call(req: WordpressRequest, kind: CallKind): Promise<ApiResponse> {
    let res: ApiResponse;
    try {
      res = await this.send(req);
    } catch (err) {
      if (req.body && !Buffer.isBuffer(req.body)) req.body.destroy();
      throw mapThrown(WORDPRESS, err);
    }
    if (res.status >= 200 && res.status < 300) return res;
    const text = wordpressErrorText(res.data);
    // A 403 of a user whose password was revoked reads rest_forbidden only for some routes; the
    // authentication failure itself is 401 (incorrect_password, invalid_username).
    if (res.status === 401) {
      throw new CredentialsRevokedError(
        `WordPress no longer accepts the application password: ${clipErrorText(text)}`,
        401,
      );
    }
    throw mapHttpFailure(WORDPRESS, res.status, res.headers, text, kind);
  }
}
