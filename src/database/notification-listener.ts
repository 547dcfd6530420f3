import { Client } from 'pg';
import { pgConnectionOptions } from './data-source-options';

export interface NotificationListenerOptions {
  /** The database's URL (its own connection, not one of the pool's: it idles on LISTEN). */
  url: string;
  connectMs: number;
  /** The NOTIFY channel; a plain identifier. */
  channel: string;
  applicationName: string;
  /** Wait before connecting again after the connection failed or dropped. */
  reconnectMs: number;
  /** Each notification. */
  onNotification(): void;
  /** Each time the connection listens again (to catch up on what was committed meanwhile). */
  onListening(): void;
  /** A failure of the connection (it is retried). */
  onProblem(message: string): void;
}

/**
 * LISTEN on a dedicated connection that reconnects when it drops: the database side of a relay woken by
 * NOTIFY (webhooks' outbox relay). Connecting is bounded like the pool's: a server that accepts and never
 * answers is retried, not waited on forever.
 */
export class NotificationListener {
  private client: Client | undefined;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(private readonly options: NotificationListenerOptions) {}

  start(): void {
    void this.listen();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.reconnectTimer);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }

  private async listen(): Promise<void> {
    if (this.stopped) return;
    const o = this.options;
    const client = new Client({
      connectionString: o.url,
      application_name: o.applicationName,
      ...pgConnectionOptions({ connectMs: o.connectMs }),
    });
    let retried = false;
    const retry = () => {
      if (retried || this.stopped) return;
      retried = true;
      if (this.client === client) this.client = undefined;
      void client.end().catch(() => undefined);
      this.reconnectTimer = setTimeout(() => void this.listen(), o.reconnectMs);
    };
    client.on('notification', () => o.onNotification());
    client.on('error', (err) => {
      o.onProblem(`LISTEN connection failed: ${err.message}`);
      retry();
    });
    client.on('end', retry);
    try {
      await client.connect();
      await client.query(`LISTEN ${o.channel}`);
      if (this.stopped) {
        await client.end();
        return;
      }
      this.client = client;
      o.onListening();
    } catch (err) {
      o.onProblem(`LISTEN connection failed: ${(err as Error).message}`);
      retry();
    }
  }
}
