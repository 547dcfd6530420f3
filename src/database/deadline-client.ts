import { Client, type ClientConfig } from 'pg';

export interface DeadlineClientConfig extends ClientConfig {
  /** Longest wait for the server's answer to one query, in ms; 0 = none. */
  queryDeadlineMs?: number;
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
  constructor(config: DeadlineClientConfig) {
    super(config);
    const deadlineMs = config.queryDeadlineMs ?? 0;
    if (deadlineMs <= 0) return;
    const query = (this.query as QueryFn).bind(this);
    (this as unknown as { query: QueryFn }).query = (...args: unknown[]) => {
      const first = args[0] as { submit?: unknown; callback?: unknown } | null | undefined;
      if (typeof first?.submit === 'function' || typeof first?.callback === 'function') return query(...args);
      const timer = setTimeout(() => this.drop(deadlineMs), deadlineMs);
      timer.unref();
      const clear = () => clearTimeout(timer);
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

  /** Fails every query of this client and closes its connection. */
  private drop(deadlineMs: number): void {
    const stream = (this as unknown as { connection?: { stream?: { destroy(err?: Error): void } } }).connection?.stream;
    stream?.destroy(new QueryDeadlineError(deadlineMs));
  }
}
