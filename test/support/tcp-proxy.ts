import * as net from 'node:net';

/**
 * A TCP proxy in front of a real server (the shared Redis or Postgres), so a test can make it
 * unreachable for one app without touching the server other tests use: `cut` refuses (drops every
 * connection, refuses new ones), `blackhole` accepts and never answers (new connections are taken and
 * left silent, open ones stop passing bytes either way), `restore` passes traffic again.
 */
export class TcpProxy {
  private server: net.Server | undefined;
  private readonly sockets = new Set<net.Socket>();
  private port = 0;
  private silent = false;

  constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {}

  /** Listens on 127.0.0.1 (a random port the first time, the same port after restore). */
  async start(): Promise<number> {
    const server = net.createServer((client) => {
      this.track(client);
      if (this.silent) return; // accepted, never answered
      const upstream = net.connect(this.targetPort, this.targetHost);
      this.track(upstream);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.server = server;
    this.port = (server.address() as net.AddressInfo).port;
    return this.port;
  }

  private track(socket: net.Socket): void {
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('error', () => undefined);
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /** `url` with its host and port replaced by the proxy's (e.g. a postgres:// URL). */
  through(url: string): string {
    const u = new URL(url);
    u.hostname = '127.0.0.1';
    u.port = String(this.port);
    return u.toString();
  }

  /** Drops every open connection and refuses new ones. */
  async cut(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    this.silent = false;
    const closed = server ? new Promise<void>((resolve) => server.close(() => resolve())) : Promise.resolve();
    for (const s of this.sockets) s.destroy();
    this.sockets.clear();
    await closed;
  }

  /**
   * A server that stopped answering: new connections are accepted and get nothing, open ones stop
   * passing bytes in either direction (nothing is closed, nothing is refused).
   */
  async blackhole(): Promise<void> {
    if (!this.server) await this.start();
    this.silent = true;
    for (const s of this.sockets) {
      s.unpipe();
      s.pause();
      s.removeAllListeners('data');
    }
  }

  /** Passes traffic again; connections held silent by `blackhole` are dropped (their peers time out). */
  async restore(): Promise<void> {
    if (this.silent) {
      this.silent = false;
      for (const s of this.sockets) s.destroy();
      this.sockets.clear();
    }
    if (!this.server) await this.start();
  }

  async stop(): Promise<void> {
    await this.cut();
  }
}
