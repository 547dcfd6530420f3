import * as http from 'node:http';
import * as https from 'node:https';
import type { Socket } from 'node:net';
import { PassThrough, Readable, pipeline } from 'node:stream';
import {
  OutboundBodyError,
  OutboundHttpError,
  OutboundNetworkError,
  OutboundResponseTooLargeError,
  OutboundTimeoutError,
} from './outbound-http.errors';
import { SsrfBlockedError, assertPublicLiteralHost, createGuardedLookup, parseOutboundUrl } from './ssrf';

export * from './outbound-http.errors';
export { SsrfBlockedError } from './ssrf';

export interface OutboundHttpOptions {
  /** When false (production), hosts that are or resolve to non-public addresses are refused. */
  allowPrivate: boolean;
  /** Total time budget of one request, connect included. Default 10000. */
  defaultTimeoutMs?: number;
  /** Time budget to establish the TCP connection. Default min(defaultTimeoutMs, 5000). */
  connectTimeoutMs?: number;
  /** Sent as User-Agent unless the request sets one. */
  userAgent?: string;
  /** Keep-alive pool size per origin. Default 64. */
  maxSocketsPerOrigin?: number;
}

export type OutboundHeaders = Record<string, string | string[] | undefined>;

export interface OutboundRequest {
  method: string;
  url: string;
  headers?: Record<string, string>;
  body?: string | Buffer | Readable;
  timeoutMs?: number;
  /** Default 10 MiB. */
  maxResponseBytes?: number;
}

export interface OutboundResponse {
  status: number;
  headers: OutboundHeaders;
  body: Buffer;
}

export interface OutboundStreamResponse {
  status: number;
  headers: OutboundHeaders;
  /**
   * The body as it arrives. It errors with OutboundTimeoutError when the request's time budget
   * runs out while reading, and with OutboundNetworkError when the connection is cut.
   */
  body: Readable;
}

export interface OutboundJsonRequest extends Omit<OutboundRequest, 'body'> {
  /** Serialized as JSON with Content-Type application/json when defined. */
  json?: unknown;
}

export interface OutboundJsonResponse<T = unknown> extends OutboundResponse {
  /** The parsed body, or undefined when the body is empty or not JSON. */
  data: T | undefined;
}

const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_MAX_RESPONSE_BYTES = 10 * 1024 * 1024;
/** Names the project (and its version) to providers and webhook receivers. */
export const DEFAULT_USER_AGENT = 'SocialPublishingService/0.1';

/** Parses a response body as JSON; undefined when empty or malformed. */
export function parseJsonBody(body: Buffer): unknown {
  if (body.length === 0) return undefined;
  try {
    return JSON.parse(body.toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * Minimal outbound HTTP client: no redirects followed, bounded time and response size, and an SSRF
 * guard applied both to literal IP hosts (before any socket is opened) and to the resolved address
 * at connect time (custom `lookup`), so DNS rebinding cannot reach internal addresses.
 */
export class OutboundHttp {
  private readonly httpAgent: http.Agent;
  private readonly httpsAgent: https.Agent;
  private readonly lookup = createGuardedLookup();
  private readonly defaultTimeoutMs: number;
  private readonly connectTimeoutMs: number;
  private readonly userAgent: string;

  constructor(private readonly options: OutboundHttpOptions) {
    this.defaultTimeoutMs = options.defaultTimeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.connectTimeoutMs = options.connectTimeoutMs ?? Math.min(this.defaultTimeoutMs, 5_000);
    this.userAgent = options.userAgent ?? DEFAULT_USER_AGENT;
    const agentOptions = {
      keepAlive: true,
      maxSockets: options.maxSocketsPerOrigin ?? 64,
      scheduling: 'lifo' as const,
    };
    this.httpAgent = new http.Agent(agentOptions);
    this.httpsAgent = new https.Agent(agentOptions);
  }

  get allowPrivate(): boolean {
    return this.options.allowPrivate;
  }

  /** Sends a request and buffers the response. 3xx responses are returned as they are. */
  async request(req: OutboundRequest): Promise<OutboundResponse> {
    const url = parseOutboundUrl(req.url);
    if (!this.options.allowPrivate) assertPublicLiteralHost(url);
    return this.send(url, req);
  }

  /** Like request(), with a JSON request body and a parsed JSON response (`data`). */
  async json<T = unknown>(req: OutboundJsonRequest): Promise<OutboundJsonResponse<T>> {
    const headers: Record<string, string> = { accept: 'application/json', ...req.headers };
    let body: string | undefined;
    if (req.json !== undefined) {
      body = JSON.stringify(req.json);
      headers['content-type'] = 'application/json';
    }
    const res = await this.request({ ...req, headers, body });
    return { ...res, data: parseJsonBody(res.body) as T | undefined };
  }

  /**
   * Like request(), but answers once the response headers are in, with the body as a stream, so
   * large downloads never sit in memory. The time budget (`timeoutMs`) covers reading the body too.
   * The caller must consume or destroy `body`.
   */
  async stream(req: Omit<OutboundRequest, 'maxResponseBytes'>): Promise<OutboundStreamResponse> {
    const url = parseOutboundUrl(req.url);
    if (!this.options.allowPrivate) assertPublicLiteralHost(url);
    const host = url.host;
    const totalMs = req.timeoutMs ?? this.defaultTimeoutMs;
    const connectMs = Math.min(this.connectTimeoutMs, totalMs);
    return new Promise<OutboundStreamResponse>((resolve, reject) => {
      let answered = false;
      let connectTimer: NodeJS.Timeout | undefined;
      const clientReq = (url.protocol === 'https:' ? https : http).request({
        protocol: url.protocol,
        hostname: url.hostname.replace(/^\[|\]$/g, ''),
        port: url.port || undefined,
        path: `${url.pathname}${url.search}`,
        method: req.method.toUpperCase(),
        headers: this.buildHeaders(req),
        agent: url.protocol === 'https:' ? this.httpsAgent : this.httpAgent,
        lookup: this.options.allowPrivate ? undefined : this.lookup,
      });
      const totalTimer = setTimeout(() => {
        clientReq.destroy(new OutboundTimeoutError(`The request to ${host} timed out after ${totalMs} ms`, 'total'));
      }, totalMs);
      const done = (): void => {
        clearTimeout(totalTimer);
        clearTimeout(connectTimer);
      };
      clientReq.once('socket', (socket: Socket) => {
        if (!socket.connecting) return;
        connectTimer = setTimeout(() => {
          clientReq.destroy(
            new OutboundTimeoutError(`Connecting to ${host} timed out after ${connectMs} ms`, 'connect'),
          );
        }, connectMs);
        socket.once('connect', () => clearTimeout(connectTimer));
      });
      clientReq.on('error', (err) => {
        done();
        if (!answered) reject(toOutboundError(err, host, undefined));
      });
      clientReq.once('response', (res: http.IncomingMessage) => {
        answered = true;
        // A destroyed request destroys the response with the same error; name it for the reader.
        const body = new PassThrough();
        pipeline(res, body, (err) => {
          done();
          if (err) body.destroy(toOutboundError(err, host, undefined));
        });
        clientReq.once('error', (err) => body.destroy(toOutboundError(err, host, undefined)));
        body.once('close', () => {
          if (!res.complete) clientReq.destroy();
          done();
        });
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
      });
      clientReq.end(req.body instanceof Readable ? undefined : req.body);
    });
  }

  /** Closes pooled keep-alive sockets. */
  close(): void {
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
  }

  private send(url: URL, req: OutboundRequest): Promise<OutboundResponse> {
    const isHttps = url.protocol === 'https:';
    const totalMs = req.timeoutMs ?? this.defaultTimeoutMs;
    const connectMs = Math.min(this.connectTimeoutMs, totalMs);
    const maxBytes = req.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    const host = url.host;
    const headers = this.buildHeaders(req);

    return new Promise<OutboundResponse>((resolve, reject) => {
      let settled = false;
      let connectTimer: NodeJS.Timeout | undefined;
      let bodyError: unknown;

      const fail = (err: unknown): void => {
        if (settled) return;
        settled = true;
        clearTimeout(totalTimer);
        clearTimeout(connectTimer);
        reject(toOutboundError(err, host, bodyError));
      };

      const options: https.RequestOptions = {
        protocol: url.protocol,
        hostname: url.hostname.replace(/^\[|\]$/g, ''),
        port: url.port || undefined,
        path: `${url.pathname}${url.search}`,
        method: req.method.toUpperCase(),
        headers,
        agent: isHttps ? this.httpsAgent : this.httpAgent,
        lookup: this.options.allowPrivate ? undefined : this.lookup,
      };
      const clientReq = (isHttps ? https : http).request(options);

      const totalTimer = setTimeout(() => {
        clientReq.destroy(new OutboundTimeoutError(`The request to ${host} timed out after ${totalMs} ms`, 'total'));
      }, totalMs);

      clientReq.once('socket', (socket: Socket) => {
        if (!socket.connecting) return;
        connectTimer = setTimeout(() => {
          clientReq.destroy(
            new OutboundTimeoutError(`Connecting to ${host} timed out after ${connectMs} ms`, 'connect'),
          );
        }, connectMs);
        socket.once('connect', () => clearTimeout(connectTimer));
      });

      clientReq.on('error', fail);

      clientReq.once('response', (res: http.IncomingMessage) => {
        const chunks: Buffer[] = [];
        let received = 0;
        res.on('data', (chunk: Buffer) => {
          received += chunk.length;
          if (received > maxBytes) {
            fail(new OutboundResponseTooLargeError(maxBytes));
            res.destroy();
            clientReq.destroy();
            return;
          }
          chunks.push(chunk);
        });
        res.on('error', fail);
        res.on('aborted', () =>
          fail(new OutboundNetworkError(`The response from ${host} was cut short`, 'ECONNRESET')),
        );
        res.on('end', () => {
          if (settled) return;
          if (!res.complete) {
            fail(new OutboundNetworkError(`The response from ${host} was cut short`, 'ECONNRESET'));
            return;
          }
          settled = true;
          clearTimeout(totalTimer);
          clearTimeout(connectTimer);
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks, received) });
        });
      });

      const body = req.body;
      if (body instanceof Readable) {
        body.once('error', (err) => {
          bodyError = err;
        });
        pipeline(body, clientReq, () => undefined);
      } else {
        clientReq.end(body);
      }
    });
  }

  private buildHeaders(req: OutboundRequest): Record<string, string> {
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers ?? {})) headers[name.toLowerCase()] = value;
    headers['user-agent'] ??= this.userAgent;
    if ((typeof req.body === 'string' || Buffer.isBuffer(req.body)) && headers['content-length'] === undefined) {
      headers['content-length'] = String(Buffer.byteLength(req.body));
    }
    return headers;
  }
}

function toOutboundError(err: unknown, host: string, bodyError: unknown): Error {
  if (err instanceof OutboundHttpError || err instanceof SsrfBlockedError) return err;
  if (bodyError !== undefined) return new OutboundBodyError(bodyError);
  const code = typeof err === 'object' && err !== null && 'code' in err ? String(err.code) : undefined;
  return new OutboundNetworkError(`Could not reach ${host}${code ? ` (${code})` : ''}`, code, { cause: err });
}
