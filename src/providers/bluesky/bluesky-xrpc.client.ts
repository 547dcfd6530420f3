import type { Readable } from 'node:stream';
import type { OutboundHeaders, OutboundHttp } from '../../common/http/outbound-http';
import { parseJsonBody } from '../../common/http/outbound-http';
import { asObject, asString } from '../provider-json.util';

export const BLUESKY = 'Bluesky';

export interface XrpcRawBody {
  body: Readable | Buffer;
  contentType: string;
  contentLength: number;
}

export interface XrpcCall {
  method: 'GET' | 'POST';
  nsid: string;
  params?: Record<string, string>;
  json?: unknown;
  /** A raw (non-JSON) body; a factory because an authenticated call may be sent twice. */
  raw?: () => XrpcRawBody;
  timeoutMs?: number;
}

export interface XrpcResponse {
  status: number;
  headers: OutboundHeaders;
  data: unknown;
}

/** The XRPC error name (`error`), e.g. ExpiredToken. */
export function xrpcErrorName(data: unknown): string | undefined {
  return asString(asObject(data)?.error);
}

/** "Error: message" from an XRPC error body. */
export function xrpcErrorText(data: unknown): string {
  const obj = asObject(data);
  const name = asString(obj?.error);
  const message = asString(obj?.message);
  if (name && message && message !== name) return `${name}: ${message}`;
  return name ?? message ?? '';
}

/** Sends XRPC requests to one service; transport failures are thrown as OutboundHttp errors. */
export class BlueskyXrpc {
  constructor(
    private readonly http: OutboundHttp,
    readonly serviceUrl: string,
  ) {}

  async send(call: XrpcCall, bearer?: string): Promise<XrpcResponse> {
    const query = call.params ? `?${new URLSearchParams(call.params).toString()}` : '';
    const headers: Record<string, string> = { accept: 'application/json' };
    if (bearer) headers.authorization = `Bearer ${bearer}`;
    let body: string | Buffer | Readable | undefined;
    if (call.raw) {
      const raw = call.raw();
      headers['content-type'] = raw.contentType;
      headers['content-length'] = String(raw.contentLength);
      body = raw.body;
    } else if (call.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(call.json);
    }
    try {
      const res = await this.http.request({
        method: call.method,
        url: `${this.serviceUrl}/xrpc/${call.nsid}${query}`,
        headers,
        body,
        timeoutMs: call.timeoutMs,
      });
      return { status: res.status, headers: res.headers, data: parseJsonBody(res.body) };
    } catch (err) {
      if (body && typeof body === 'object' && 'destroy' in body) body.destroy();
      throw err;
    }
  }
}
