import { Client, type ClientConfig } from 'pg';

export interface DeadlineClientConfig extends ClientConfig {
  /** Longest wait for the server's answer to one query, in ms; 0 = none. */
  queryDeadlineMs?: number;
  /** Checks the server on a new connection when a query or a connect waits longer than its timeout. */
  databaseProbe?: DatabaseProbe;
}

type Callback = (...args: unknown[]) => void;
type QueryFn = (...args: unknown[]) => unknown;

/** The error a query fails with when its connection is dropped for want of an answer. */
export class QueryDeadlineError extends Error {
  readonly code = 'ETIMEDOUT';

  constructor(ms: number) {
    super(`No answer from the database within ${ms} ms; the connection was dropped`);
    this.name = 'QueryDeadlineError';
  }
}

/** The error a query or a connect fails with when a probe found the database not answering. */
export class DatabaseUnreachableError extends Error {
  readonly code = 'ETIMEDOUT';

  constructor(ms: number) {
    super(`The database did not answer a check on a new connection within ${ms} ms; its connections were dropped`);
    this.name = 'DatabaseUnreachableError';
  }
}

/** After a failed probe, connects fail at once for this long; the next one waits for a new probe. */
const DOWN_HOLD_MS = 1_000;

/**
 * Tells a database that is slow from one that stopped answering, sooner than the query deadline: when a
 * query (or a connect) of a pooled client has waited `timeoutMs`, one probe (shared by every client
 * of the pool) opens a new connection and runs `SELECT 1`, within the same `timeoutMs`. A probe that
 * fails drops every connection of the pool, failing the queries waiting on them, and connects fail at
 * once until a probe answers again (each connect after DOWN_HOLD_MS waits for a new probe). A slow
 * statement on a server that answers costs one probe and nothing else.
 */
export class DatabaseProbe {
  private readonly clients = new Set<DeadlineClient>();
  private config: ClientConfig | undefined;
  private running: Promise<boolean> | undefined;
  private downSince = 0;
  private lastFailure = 0;

  constructor(readonly timeoutMs: number) {}

  register(client: DeadlineClient, config: ClientConfig): void {
    this.config ??= config;
    this.clients.add(client);
    client.once('end', () => this.clients.delete(client));
  }

  /** Whether the last probe failed (the database is taken for down). */
  get down(): boolean {
    return this.downSince > 0;
  }

  /** Runs a probe, or joins the one running; resolves whether the database answered. */
  check(): Promise<boolean> {
    this.running ??= this.run().finally(() => (this.running = undefined));
    return this.running;
  }

  /** Before a connect: nothing while the database is up; else fails at once, or after a new failed probe. */
  async gate(): Promise<void> {
    if (!this.down) return;
    if (Date.now() - this.lastFailure < DOWN_HOLD_MS || !(await this.check())) {
      throw new DatabaseUnreachableError(this.timeoutMs);
    }
  }

  private async run(): Promise<boolean> {
    const config = this.config;
    if (!config) return true;
    const own: DeadlineClientConfig = { ...config };
    delete own.databaseProbe;
    delete own.queryDeadlineMs;
    const client = new Client({ ...own, connectionTimeoutMillis: this.timeoutMs });
    client.on('error', () => undefined);
    const timer = setTimeout(
      () => streamOf(client)?.destroy(new DatabaseUnreachableError(this.timeoutMs)),
      this.timeoutMs,
    );
    timer.unref();
    let answered: boolean;
    try {
      await client.connect();
      await client.query('SELECT 1');
      answered = true;
    } catch {
      answered = false;
    } finally {
      clearTimeout(timer);
      void client.end().catch(() => undefined);
    }
    if (answered) {
      this.downSince = 0;
      return true;
    }
    this.lastFailure = Date.now();
    if (!this.down) this.downSince = this.lastFailure;
    for (const c of this.clients) c.drop(new DatabaseUnreachableError(this.timeoutMs));
    return false;
  }
}

function streamOf(client: Client): { destroy(err?: Error): void } | undefined {
  return (client as unknown as { connection?: { stream?: { destroy(err?: Error): void } } }).connection?.stream;
}

/**
 * A pg client that drops its connection when the server has not answered a query within the
 * deadline: the query fails, and the pool (which removes a client whose connection failed) connects
 * anew for the next one. Postgres's statement_timeout bounds the work of a server that answers; this
 * bounds the wait on one that does not (a network partition, a server that is frozen or blackholed),
 * which would otherwise last as long as the kernel keeps the TCP connection (minutes). pg's own
 * `query_timeout` does not do: it fails the query but keeps the connection, with the unanswered query
 * still ahead of every later one on it.
 *
 * The pool builds its clients with this class (`Client` in the pool options, next to
 * `queryDeadlineMs`). Queries given as submittables (cursors, streams) keep no deadline: their
 * consumer sets the pace.
 */
export class DeadlineClient extends Client {
  private readonly probe: DatabaseProbe | undefined;

  constructor(config: DeadlineClientConfig) {
    super(config);
    const deadlineMs = config.queryDeadlineMs ?? 0;
    this.probe = config.databaseProbe;
    if (this.probe) {
      this.probe.register(this, config);
      this.gateConnect(this.probe);
      // A probe drops connections held between two statements too: their next query fails (503); the
      // 'error' the client emits then must not end the process.
      this.on('error', () => undefined);
    }
    if (deadlineMs <= 0) return;
    const query = (this.query as QueryFn).bind(this);
    (this as unknown as { query: QueryFn }).query = (...args: unknown[]) => {
      const first = args[0] as { submit?: unknown; callback?: unknown } | null | undefined;
      if (typeof first?.submit === 'function' || typeof first?.callback === 'function') return query(...args);
      const timer = setTimeout(() => this.drop(new QueryDeadlineError(deadlineMs)), deadlineMs);
      timer.unref();
      const suspect = this.suspect();
      const clear = () => {
        clearTimeout(timer);
        clearTimeout(suspect);
      };
      const last = args[args.length - 1];
      if (typeof last === 'function') {
        args[args.length - 1] = (...result: unknown[]) => {
          clear();
          (last as Callback)(...result);
        };
      }
      try {
        const result = query(...args) as Promise<unknown> | undefined;
        if (typeof result?.then === 'function') result.then(clear, clear);
        return result;
      } catch (err) {
        clear();
        throw err;
      }
    };
  }

  /**
   * Connects unless a probe found the database down (then fails at once, DatabaseProbe.gate); a connect
   * still waiting after the probe timeout starts a probe.
   */
  private gateConnect(probe: DatabaseProbe): void {
    const connect = (this.connect as (...args: unknown[]) => Promise<unknown>).bind(this);
    (this as unknown as { connect: (callback?: Callback) => Promise<unknown> | undefined }).connect = (
      callback?: Callback,
    ) => {
      const suspect = this.suspect();
      const connected = probe
        .gate()
        .then(() => connect())
        .finally(() => clearTimeout(suspect));
      if (!callback) return connected;
      connected.then(
        (client) => callback(null, client),
        (err: unknown) => callback(err),
      );
      return undefined;
    };
  }

  /** A timer that starts a probe when a wait passes the probe timeout (none without a probe). */
  private suspect(): NodeJS.Timeout | undefined {
    const probe = this.probe;
    if (!probe) return undefined;
    const timer = setTimeout(() => void probe.check(), probe.timeoutMs);
    timer.unref();
    return timer;
  }

  /** Fails every query of this client (and a connect under way) and closes its connection. */
  drop(err: Error): void {
    const connection = (this as unknown as { connection?: { on(event: 'error', fn: () => void): void } }).connection;
    const stream = streamOf(this) as
      { destroy(err?: Error): void; destroyed?: boolean; listenerCount(event: string): number } | undefined;
    // A client whose connect has not begun (it waits on the probe) has nothing to drop.
    if (!connection || !stream || stream.destroyed || stream.listenerCount('error') === 0) return;
    // A connection past its client's listeners (being ended) would otherwise raise an unhandled 'error'.
    connection.on('error', () => undefined);
    stream.destroy(err);
  }
}
