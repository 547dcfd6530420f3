import { setMaxListeners } from 'node:events';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Description, DescriptionViolation } from './descriptions/description';

/** Engagement counts a test can set on a post (setCounts). */
export interface FakeCounts {
  likes: number;
  reposts: number;
  replies: number;
  /** Mastodon: quotes_count is part of the status only when this is set. */
  quotes?: number;
}

/** One request as the fake received it. */
export interface FakeRequestLogEntry {
  method: string;
  /** Path without the query string. */
  path: string;
  /** The query string without "?", '' when none. */
  query: string;
  /** The route key the request matched (see the fake's docs), or the path when none matched. */
  route: string;
  headers: http.IncomingHttpHeaders;
  bodyBytes: number;
  at: number;
}

/** A publish request kept open until `release()`. */
export interface FakeHold {
  /** Resolves when the held request has arrived (its post is already created then). */
  readonly arrived: Promise<void>;
  /** Lets the held response go out (no effect if the client is gone). */
  release(): void;
}

export interface FakeRequest {
  method: string;
  path: string;
  url: URL;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  route: string;
}

export interface FakeReply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** Raw bytes instead of JSON. */
  raw?: Buffer;
}

export interface FakeServerOptions {
  /** Delay before every answer, in ms. Default 0. */
  latencyMs?: number;
  /** Keep `requests`; turn off for long benchmarks. Default true. */
  logRequests?: boolean;
  /** Largest request body accepted, in bytes. Default 64 MiB. */
  maxBodyBytes?: number;
}

/** How a fake answers the requests its network's description refuses (see checkAgainst). */
export interface DescriptionCheckOptions {
  /** The network's documented error answer (status and body) for a request it refuses as malformed. */
  refuse: (problems: string[], req: FakeRequest) => FakeReply;
  /**
   * Requests the description does not cover and that pass unchecked: the fake's own test routes, an
   * endpoint documented elsewhere (the OAuth token exchange). Say why at the call.
   */
  unchecked?: (req: FakeRequest) => boolean;
}

interface FailRule {
  remaining: number;
  status: number;
  route?: string;
  when?: (req: FakeRequest) => boolean;
}

class Hold implements FakeHold {
  readonly arrived: Promise<void>;
  private markArrived!: () => void;
  private readonly releasedPromise: Promise<void>;
  private releaseFn!: () => void;

  constructor() {
    this.arrived = new Promise<void>((resolve) => (this.markArrived = resolve));
    this.releasedPromise = new Promise<void>((resolve) => (this.releaseFn = resolve));
  }

  release(): void {
    this.releaseFn();
  }

  async wait(): Promise<void> {
    this.markArrived();
    await this.releasedPromise;
  }
}

/**
 * Base of the provider fakes: a node:http server on 127.0.0.1 with a request log, injected
 * failures (`failNext`), artificial latency and held publish requests. Subclasses route requests.
 */
export abstract class FakeHttpServer {
  /** Every request received, oldest first (when logRequests is on). */
  readonly requests: FakeRequestLogEntry[] = [];
  private server: http.Server | undefined;
  private url: string | undefined;
  private readonly failRules: FailRule[] = [];
  private readonly pendingHolds: Hold[] = [];
  private readonly activeHolds = new Set<Hold>();
  private readonly routeLatency = new Map<string, number>();
  private latencyMs: number;
  private readonly logRequests: boolean;
  private readonly maxBodyBytes: number;
  private stopping = new AbortController();
  private description: { of: Description; options: DescriptionCheckOptions } | undefined;
  /** Requests the description refused (answered with the network's error), oldest first. */
  readonly descriptionViolations: DescriptionViolation[] = [];

  protected constructor(options: FakeServerOptions = {}) {
    this.latencyMs = options.latencyMs ?? 0;
    this.logRequests = options.logRequests ?? true;
    this.maxBodyBytes = options.maxBodyBytes ?? 64 * 1024 * 1024;
  }

  /** Starts listening on 127.0.0.1 (random port) and returns the base URL, e.g. http://127.0.0.1:41234. */
  async start(): Promise<string> {
    if (this.url) return this.url;
    this.stopping = new AbortController();
    setMaxListeners(0, this.stopping.signal); // one listener per delayed request in flight (setLatency)
    const server = http.createServer((req, res) => void this.onRequest(req, res));
    server.keepAliveTimeout = 30_000;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    this.server = server;
    this.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return this.url;
  }

  /** Stops the server, releasing held requests and dropping open connections. */
  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    this.url = undefined;
    this.stopping.abort();
    for (const hold of [...this.pendingHolds, ...this.activeHolds]) hold.release();
    this.pendingHolds.length = 0;
    this.activeHolds.clear();
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }

  /** The base URL; throws before start(). */
  get baseUrl(): string {
    if (!this.url) throw new Error('The fake server is not started');
    return this.url;
  }

  /**
   * The next `n` requests (to `route` only, when given: a route key such as 'POST /api/v1/statuses'
   * or an XRPC method id, or an exact path; and only those `when` accepts, when given, e.g. the
   * publish of one part of a thread by its text) are answered with `status` and the provider's error body.
   */
  failNext(n: number, status = 500, route?: string, when?: (req: FakeRequest) => boolean): void {
    if (n > 0) this.failRules.push({ remaining: n, status, route, when });
  }

  /** Removes pending failNext rules. */
  clearFailures(): void {
    this.failRules.length = 0;
  }

  /** Delay before every answer (or only for `route`), in ms. */
  setLatency(ms: number, route?: string): void {
    if (route === undefined) this.latencyMs = ms;
    else this.routeLatency.set(route, ms);
  }

  /**
   * Checks every request from now on against the network's own description of its API: a request it
   * refuses is answered with `options.refuse` (the network's documented error) and recorded in
   * `descriptionViolations`, so a spec (and the contract suite) sees an adapter that strays from it.
   */
  checkAgainst(description: Description, options: DescriptionCheckOptions): this {
    this.description = { of: description, options };
    return this;
  }

  /** The description the fake checks requests against, if any. */
  get describedBy(): Description | undefined {
    return this.description?.of;
  }

  clearRequests(): void {
    this.requests.length = 0;
  }

  /**
   * Holds the next publish request open until `release()`. The post is created when the request
   * arrives, before the hold, as when a client dies mid-request after the provider committed the post.
   */
  holdNextPublish(): FakeHold {
    const hold = new Hold();
    this.pendingHolds.push(hold);
    return hold;
  }

  /** Route key of a request, e.g. 'GET /api/v1/statuses/:id'; undefined when nothing matches. */
  protected abstract routeOf(method: string, path: string): string | undefined;

  /** Answers a request that passed the injected failures. */
  protected abstract handle(req: FakeRequest): Promise<FakeReply> | FakeReply;

  /** The provider's error answer for an injected failure with this status. */
  protected abstract injectedFailure(status: number): FakeReply;

  /** For publish handlers: waits here when a hold was requested (call after the post is created). */
  protected async waitIfHeld(): Promise<void> {
    const hold = this.pendingHolds.shift();
    if (!hold) return;
    this.activeHolds.add(hold);
    try {
      await hold.wait();
    } finally {
      this.activeHolds.delete(hold);
    }
  }

  private async onRequest(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    try {
      const url = new URL(req.url ?? '/', 'http://fake.invalid');
      const method = (req.method ?? 'GET').toUpperCase();
      const body = await this.readBody(req);
      if (body === undefined) {
        this.send(res, { status: 413, body: { error: 'PayloadTooLarge', message: 'request entity too large' } });
        return;
      }
      const route = this.routeOf(method, url.pathname) ?? url.pathname;
      if (this.logRequests) {
        this.requests.push({
          method,
          path: url.pathname,
          query: url.search.slice(1),
          route,
          headers: req.headers,
          bodyBytes: body.length,
          at: Date.now(),
        });
      }
      const delay = this.routeLatency.get(route) ?? this.latencyMs;
      if (delay > 0) await sleep(delay, undefined, { signal: this.stopping.signal });
      const request: FakeRequest = { method, path: url.pathname, url, headers: req.headers, body, route };
      const refused = this.refusedByDescription(request);
      const reply = refused ?? this.takeFailure(request) ?? (await this.handle(request));
      this.send(res, reply);
    } catch (err) {
      if (this.stopping.signal.aborted) {
        res.destroy();
        return;
      }
      this.send(res, { status: 500, body: { error: 'FakeServerError', message: String(err) } });
    }
  }

  private refusedByDescription(req: FakeRequest): FakeReply | undefined {
    if (!this.description) return undefined;
    const { of, options } = this.description;
    if (options.unchecked?.(req)) return undefined;
    const contentTypeHeader = String(req.headers['content-type'] ?? '');
    const { operation, problems } = of.check({
      method: req.method,
      path: req.path,
      query: req.url.searchParams,
      contentType: contentTypeHeader.split(';')[0].trim().toLowerCase(),
      contentTypeHeader,
      body: req.body,
      headers: req.headers,
    });
    if (problems.length === 0) return undefined;
    this.descriptionViolations.push({ method: req.method, path: req.path, operation, problems });
    return options.refuse(problems, req);
  }

  private takeFailure(req: FakeRequest): FakeReply | undefined {
    const index = this.failRules.findIndex(
      (r) => (r.route === undefined || r.route === req.route || r.route === req.path) && (r.when?.(req) ?? true),
    );
    if (index < 0) return undefined;
    const rule = this.failRules[index];
    rule.remaining -= 1;
    if (rule.remaining <= 0) this.failRules.splice(index, 1);
    return this.injectedFailure(rule.status);
  }

  private readBody(req: http.IncomingMessage): Promise<Buffer | undefined> {
    return new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      let size = 0;
      let tooLarge = false;
      req.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > this.maxBodyBytes) tooLarge = true;
        else chunks.push(chunk);
      });
      req.on('end', () => resolve(tooLarge ? undefined : Buffer.concat(chunks, size)));
      req.on('error', reject);
    });
  }

  private send(res: http.ServerResponse, reply: FakeReply): void {
    if (res.destroyed || res.headersSent) return;
    const payload = reply.raw ?? (reply.body === undefined ? Buffer.alloc(0) : Buffer.from(JSON.stringify(reply.body)));
    const headers: Record<string, string> = { ...reply.headers, 'content-length': String(payload.length) };
    if (!reply.raw && reply.body !== undefined) headers['content-type'] ??= 'application/json; charset=utf-8';
    res.writeHead(reply.status, headers);
    res.end(payload);
  }
}
