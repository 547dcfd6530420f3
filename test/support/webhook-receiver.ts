import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

/** One webhook POST as the receiver got it. */
export interface ReceivedWebhook {
  path: string;
  headers: http.IncomingHttpHeaders;
  /** The raw body, exactly as sent (what signatures cover). */
  body: string;
  /** Date.now() when the request ended. */
  at: number;
  /** Status the receiver answered. */
  status: number;
}

export interface ReceiverReply {
  status: number;
  headers?: Record<string, string>;
  body?: string;
}

export interface ReceiverOptions {
  /** Keep every request in `received`; off for long benchmarks. Default true. */
  keep?: boolean;
  /** Called for every request (after the reply is chosen). */
  onRequest?: (r: ReceivedWebhook) => void;
}

/** A request kept unanswered until `release()` (see `holdNext`). */
export interface ReceiverHold {
  /** Resolves when the held request has fully arrived (it is already in `received`). */
  readonly arrived: Promise<void>;
  /** Sends the reply. */
  release(): void;
}

/**
 * A local webhook endpoint for tests and benchmarks: records POSTs per path and answers 204, or
 * scripted replies (`replyNext`) or a fixed status per path (`setStatus`); `holdNext` keeps a reply back.
 */
export class WebhookReceiver {
  readonly received: ReceivedWebhook[] = [];
  private server: http.Server | undefined;
  private base: string | undefined;
  private readonly scripted = new Map<string, ReceiverReply[]>();
  private readonly fixed = new Map<string, ReceiverReply>();
  private readonly holds = new Map<string, Array<{ arrived: () => void; released: Promise<void> }>>();

  constructor(private readonly options: ReceiverOptions = {}) {}

  async start(): Promise<string> {
    const server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const path = (req.url ?? '/').split('?')[0];
        const reply = this.scripted.get(path)?.shift() ?? this.fixed.get(path) ?? { status: 204 };
        const entry: ReceivedWebhook = {
          path,
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
          at: Date.now(),
          status: reply.status,
        };
        if (this.options.keep !== false) this.received.push(entry);
        this.options.onRequest?.(entry);
        const hold = this.holds.get(path)?.shift();
        const answer = () => {
          res.writeHead(reply.status, reply.headers);
          res.end(reply.body);
        };
        if (!hold) return answer();
        hold.arrived();
        void hold.released.then(answer);
      });
    });
    server.keepAliveTimeout = 30_000;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.server = server;
    this.base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return this.base;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }

  /** The URL of a path on this receiver, e.g. url('/a'). */
  url(path = '/'): string {
    if (!this.base) throw new Error('The receiver is not started');
    return `${this.base}${path}`;
  }

  /** The next `n` requests to `path` get this reply (then the fixed status, else 204). */
  replyNext(path: string, n: number, reply: ReceiverReply): void {
    const list = this.scripted.get(path) ?? [];
    for (let i = 0; i < n; i++) list.push(reply);
    this.scripted.set(path, list);
  }

  /** The next request to `path` is recorded at once but answered only on `release()`. */
  holdNext(path: string): ReceiverHold {
    let arrived!: () => void;
    let release!: () => void;
    const hold = {
      arrived: new Promise<void>((resolve) => (arrived = resolve)),
      released: new Promise<void>((resolve) => (release = resolve)),
    };
    const list = this.holds.get(path) ?? [];
    list.push({ arrived, released: hold.released });
    this.holds.set(path, list);
    return { arrived: hold.arrived, release };
  }

  /** Every request to `path` gets this reply until cleared (scripted replies go first). */
  setReply(path: string, reply: ReceiverReply | undefined): void {
    if (reply) this.fixed.set(path, reply);
    else this.fixed.delete(path);
  }

  /** Requests to `path` so far, oldest first. */
  at(path: string): ReceivedWebhook[] {
    return this.received.filter((r) => r.path === path);
  }

  /** Parsed bodies of the requests to `path`. */
  events(path: string): Array<{ id: string; type: string; timestamp: string; workspaceId: string; data: any }> {
    return this.at(path).map((r) => JSON.parse(r.body));
  }

  /** Waits until `predicate` holds (polling every 20 ms), failing after `timeoutMs`. */
  async waitFor(predicate: () => boolean, timeoutMs = 10_000, what = 'webhook requests'): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!predicate()) {
      if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
      await sleep(20);
    }
  }

  /** Waits until `path` has received at least `count` requests and returns them. */
  async waitForCount(path: string, count: number, timeoutMs = 10_000): Promise<ReceivedWebhook[]> {
    await this.waitFor(() => this.at(path).length >= count, timeoutMs, `${count} requests to ${path}`);
    return this.at(path);
  }
}
