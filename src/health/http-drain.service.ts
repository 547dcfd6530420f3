import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { Server as NetServer, type Socket } from 'node:net';
import { Server as TlsServer } from 'node:tls';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnModuleDestroy,
} from '@nestjs/common';
import { ConfigType } from '@nestjs/config';
import { HttpAdapterHost } from '@nestjs/core';
import { httpConfig } from '../config';
import { ShutdownDeadline } from '../queue/shutdown-deadline';

/** A connection with nothing in flight that sends nothing for this long is closed during the drain. */
const IDLE_GRACE_MS = 250;
const SWEEP_MS = 50;
/** Time to take the connections already queued once the backlog is down to zero. */
const TAKE_QUEUE_MS = 50;
/** Without a connection for this long, the queue is taken to be empty. */
const QUIET_MS = 100;

type HttpSocket = Socket & { _httpMessage?: ServerResponse | null };

interface Seen {
  bytesRead: number;
  since: number;
}

/**
 * The SIGTERM drain of the HTTP listener, in the order load balancers and clients need it:
 *
 * 1. At the signal (the first shutdown hook) readiness turns 503 (HealthService) and every answer
 *    from then on carries `Connection: close`; the listener keeps accepting for
 *    SHUTDOWN_DRAIN_DELAY_MS, so balancers see the process unready before it stops taking connections.
 * 2. Then the listener closes: the kernel refuses new connections, a clean error clients can retry.
 * 3. Every connection accepted before that is served: a request in flight gets its answer, a
 *    connection whose request is still arriving gets it read and answered, and a connection is closed
 *    only once it has nothing in flight and has sent nothing for IDLE_GRACE_MS (Node's own
 *    `closeIdleConnections` also closed freshly accepted connections whose request was on its way,
 *    resetting requests sent before the signal). Whatever is left at the process's drain deadline
 *    (SHUTDOWN_TIMEOUT_MS from the signal) is cut.
 *
 * Costs nothing per request: connections are tracked as they open, the `Connection: close` listener is
 * added at the signal.
 */
@Injectable()
export class HttpDrainService implements OnApplicationBootstrap, OnModuleDestroy, BeforeApplicationShutdown {
  private readonly logger = new Logger('HTTP');
  private readonly connections = new Set<HttpSocket>();
  private server: Server | undefined;
  private startedAt: number | undefined;

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly deadline: ShutdownDeadline,
    @Inject(httpConfig.KEY) private readonly http: ConfigType<typeof httpConfig>,
  ) {}

  onApplicationBootstrap(): void {
    // A worker's application context has no HTTP server.
    const server = this.adapterHost.httpAdapter?.getHttpServer() as Server | undefined;
    if (!server) return;
    this.server = server;
    server.on(server instanceof TlsServer ? 'secureConnection' : 'connection', (socket: HttpSocket) => {
      this.connections.add(socket);
      socket.once('close', () => this.connections.delete(socket));
    });
  }

  /** The signal: from now on answers close their connection. */
  onModuleDestroy(): void {
    if (!this.server || this.startedAt !== undefined) return;
    this.startedAt = Date.now();
    this.deadline.begin();
    this.server.prependListener('request', (_req: IncomingMessage, res: ServerResponse) => {
      res.setHeader('connection', 'close');
    });
    for (const socket of this.connections) {
      const res = socket._httpMessage;
      if (res && !res.headersSent) res.setHeader('connection', 'close');
    }
  }

  async beforeApplicationShutdown(): Promise<void> {
    const server = this.server;
    if (!server?.listening) return;
    this.onModuleDestroy();
    const wait = this.startedAt! + this.http.drainDelayMs - Date.now();
    if (wait > 0) await sleep(wait);

    await stopAccepting(server);
    const accepted = this.connections.size;
    this.logger.log({ msg: 'Stopped accepting connections; answering the accepted ones', connections: accepted });
    const seen = new Map<HttpSocket, Seen>();
    while (this.connections.size > 0 && this.deadline.remainingMs() > 0) {
      const now = Date.now();
      for (const socket of this.connections) {
        const last = seen.get(socket);
        if (socket._httpMessage || !last || socket.bytesRead !== last.bytesRead) {
          seen.set(socket, { bytesRead: socket.bytesRead, since: now });
        } else if (now - last.since >= IDLE_GRACE_MS) {
          socket.destroy();
        }
      }
      await sleep(SWEEP_MS);
    }
    const cut = this.connections.size;
    for (const socket of this.connections) socket.destroy();
    if (cut > 0) {
      this.logger.warn(`Drain deadline reached: ${cut} of ${accepted} connections were still open and are closed`);
    }
  }
}

/**
 * Closes the listener resetting as few queued connections as it can. Connections the kernel has accepted but
 * the process has not yet taken are reset when a listener closes, with the requests already sent on
 * them. So the backlog goes to 0 first (Linux applies a new backlog to a listening socket): further
 * handshakes are dropped while one connection waits, and their clients retry and are refused once the
 * listener is gone. After a moment to take what was queued, the listener closes as it takes a
 * connection (the queue is empty then: the close runs before the next accept), or once none came for
 * a while. net's close, not http's: that one also closes every idle connection, freshly accepted
 * ones whose request is on its way included.
 */
async function stopAccepting(server: Server): Promise<void> {
  const close = () => NetServer.prototype.close.call(server);
  const handle = (server as unknown as { _handle?: { listen?: (backlog: number) => number } })._handle;
  if (typeof handle?.listen !== 'function' || handle.listen(0) !== 0) return void close();
  await sleep(TAKE_QUEUE_MS);
  await new Promise<void>((resolve) => {
    const stop = () => {
      clearTimeout(timer);
      server.off('connection', stop);
      close();
      resolve();
    };
    const timer = setTimeout(stop, QUIET_MS);
    server.on('connection', stop);
  });
}
