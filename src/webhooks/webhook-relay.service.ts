import { Inject, Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { ConfigType } from '@nestjs/config';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { databaseConfig } from '../config';
import { pgConnectionOptions } from '../database/data-source-options';
import { runSql } from '../database/direct-query';
import { EventOutboxStore } from '../events/event-outbox.store';
import { EVENTS_NOTIFY_CHANNEL } from '../events/events.store';
import { DueAttempt, WebhookQueue } from './webhook.queue';

/** Events moved per transaction. */
const RELAY_BATCH = 500;
/** Pending deliveries checked per reconciler run. */
const RECONCILE_BATCH = 1_000;
/** A due delivery this overdue has probably lost its job (Redis flushed, enqueue failed, worker died). */
const RECONCILE_GRACE_MS = 10_000;
const ENQUEUE_TIMEOUT_MS = 5_000;
const LISTEN_RECONNECT_MS = 1_000;

interface PendingRow {
  id: string;
  attempts: number;
  status: string;
  delay_ms: number;
}

/**
 * Moves committed outbox events to webhook delivery: one delivery row per matching enabled
 * subscription, one Bull job per delivery, then `dispatched_at`. Woken by NOTIFY on a dedicated
 * connection (low latency) and by the periodic job `webhooks.sweep` (WebhookSweepJob: catch-up);
 * several workers can relay at once (`FOR UPDATE SKIP LOCKED`). The same sweep re-enqueues pending
 * deliveries whose job went missing.
 */
@Injectable()
export class WebhookRelay implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('WebhookRelay');
  private listener: Client | undefined;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private stopped = false;
  private running: Promise<void> | undefined;
  private rerun = false;
  private lastProblem = 0;

  constructor(
    private readonly dataSource: DataSource,
    private readonly queue: WebhookQueue,
    private readonly outbox: EventOutboxStore,
    @Inject(databaseConfig.KEY) private readonly db: ConfigType<typeof databaseConfig>,
  ) {}

  onApplicationBootstrap(): void {
    void this.listen();
  }

  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.reconnectTimer);
    const listener = this.listener;
    this.listener = undefined;
    await listener?.end().catch(() => undefined);
    await this.running;
  }

  /** The periodic catch-up (WebhookSweepJob): relays what is left, then re-enqueues lost delivery jobs. */
  async sweep(): Promise<void> {
    await this.trigger();
    if (this.stopped) return;
    await this.reconcile().catch((err: Error) => this.problem(`Reconciler failed: ${err.message}`));
  }

  /** Relays until no committed event is left; concurrent calls coalesce into one more pass. */
  trigger(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    if (this.running) {
      this.rerun = true;
      return this.running;
    }
    this.running = (async () => {
      try {
        do {
          this.rerun = false;
          while (!this.stopped && (await this.relayBatch()) === RELAY_BATCH) {
            // a full batch: more may be waiting
          }
        } while (this.rerun && !this.stopped);
      } catch (err) {
        this.problem(`Relay pass failed, the sweep will retry: ${(err as Error).message}`);
      } finally {
        this.running = undefined;
      }
    })();
    return this.running;
  }

  /**
   * One batch in one transaction: lock undispatched events (skipping rows another worker holds,
   * through the events module's EventOutboxStore), create their deliveries, enqueue the jobs, then mark the events dispatched. Deliveries are
   * committed before the jobs exist (autocommit, outside the event transaction) so a worker never
   * sees a job without its row; if enqueueing fails the events stay undispatched and the next pass
   * finds the same deliveries again (unique per subscription and event).
   */
  async relayBatch(): Promise<number> {
    if (!this.queue.isReady()) {
      if (!this.queue.isConnecting()) {
        this.problem('Redis is unreachable: outbox events wait in Postgres until it is back');
      }
      return 0;
    }
    const qr = this.dataSource.createQueryRunner();
    await qr.connect();
    try {
      await qr.startTransaction();
      const events = await this.outbox.lockUndispatched(qr.manager, RELAY_BATCH);
      if (events.length === 0) {
        await qr.commitTransaction();
        return 0;
      }
      const ids = events.map((e) => e.id);
      const deliveries = await runSql<PendingRow>(
        this.dataSource,
        `INSERT INTO webhook_deliveries
           (workspace_id, webhook_id, event_id, event_type, status, attempts, next_attempt_at)
         SELECT e.workspace_id, w.id, e.id, e.type, 'pending', 0, now()
           FROM unnest($1::uuid[], $2::uuid[], $3::varchar[]) AS e(id, workspace_id, type)
           JOIN webhooks w ON w.workspace_id = e.workspace_id AND w.enabled
                          AND (cardinality(w.events) = 0 OR e.type = ANY (w.events))
         ON CONFLICT (webhook_id, event_id) DO UPDATE SET updated_at = webhook_deliveries.updated_at
         RETURNING id, attempts, status,
                   GREATEST(0, EXTRACT(EPOCH FROM (next_attempt_at - now())) * 1000)::int AS delay_ms`,
        [ids, events.map((e) => e.workspaceId), events.map((e) => e.type)],
      );
      // Only first attempts: a delivery already attempted is scheduled by its processor (and, if that
      // job is lost, by the reconciler).
      const due: DueAttempt[] = deliveries
        .filter((d) => d.status === 'pending' && d.attempts === 0)
        .map((d) => ({ deliveryId: d.id, attempt: 1, delayMs: d.delay_ms }));
      await this.queue.enqueueAttempts(due, ENQUEUE_TIMEOUT_MS);
      await this.outbox.markDispatched(qr.manager, ids);
      await qr.commitTransaction();
      return ids.length;
    } catch (err) {
      if (qr.isTransactionActive) await qr.rollbackTransaction().catch(() => undefined);
      throw err;
    } finally {
      await qr.release();
    }
  }

  /**
   * Re-enqueues pending deliveries that are overdue: their job was lost (Redis flushed or down when
   * a retry was scheduled, a worker died mid-attempt after its lease). Job ids are deterministic,
   * so a job that does exist is not duplicated, and the claim in the database guards the rest.
   */
  async reconcile(): Promise<number> {
    if (!this.queue.isReady()) return 0;
    const rows: PendingRow[] = await this.dataSource.query(
      `SELECT id, attempts, status, 0 AS delay_ms FROM webhook_deliveries
        WHERE status = 'pending' AND next_attempt_at <= now() - make_interval(secs => $1::double precision / 1000)
        ORDER BY next_attempt_at
        LIMIT $2`,
      [RECONCILE_GRACE_MS, RECONCILE_BATCH],
    );
    await this.queue.enqueueAttempts(
      rows.map((r) => ({ deliveryId: r.id, attempt: r.attempts + 1 })),
      ENQUEUE_TIMEOUT_MS,
    );
    return rows.length;
  }

  /** LISTEN on a dedicated connection (not from the pool); reconnects and catches up when it drops. */
  private async listen(): Promise<void> {
    if (this.stopped) return;
    const client = new Client({
      connectionString: this.db.url,
      application_name: 'social-publishing-relay',
      // Connecting is bounded like the pool's: a server that accepts and never answers is retried, not
      // waited on forever. Nothing else: the connection idles on LISTEN.
      ...pgConnectionOptions({ connectMs: this.db.timeouts.connectMs }),
    });
    let retried = false;
    const retry = () => {
      if (retried || this.stopped) return;
      retried = true;
      if (this.listener === client) this.listener = undefined;
      void client.end().catch(() => undefined);
      this.reconnectTimer = setTimeout(() => void this.listen(), LISTEN_RECONNECT_MS);
    };
    client.on('notification', () => void this.trigger());
    client.on('error', (err) => {
      this.problem(`LISTEN connection failed: ${err.message}`);
      retry();
    });
    client.on('end', retry);
    try {
      await client.connect();
      await client.query(`LISTEN ${EVENTS_NOTIFY_CHANNEL}`);
      if (this.stopped) {
        await client.end();
        return;
      }
      this.listener = client;
      void this.trigger(); // whatever was committed while nobody listened
    } catch (err) {
      this.problem(`LISTEN connection failed: ${(err as Error).message}`);
      retry();
    }
  }

  /** Warns at most every 10 s about the same kind of trouble. */
  private problem(message: string): void {
    const now = Date.now();
    if (now - this.lastProblem < 10_000) return;
    this.lastProblem = now;
    this.logger.warn(message);
  }
}
