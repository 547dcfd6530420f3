import { Inject, Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { ConfigType } from '@nestjs/config';
import { databaseConfig } from '../config';
import { NotificationListener } from '../database/notification-listener';
import { Transactions } from '../database/transactions';
import { EventOutboxStore } from '../events/event-outbox.store';
import { EVENTS_NOTIFY_CHANNEL } from '../events/events.store';
import { WebhookDeliveryLogStore } from './webhook-delivery-log.store';
import { DueAttempt, WebhookQueue } from './webhook.queue';

/** Events moved per transaction. */
const RELAY_BATCH = 500;
/** Pending deliveries checked per reconciler run. */
const RECONCILE_BATCH = 1_000;
/** A due delivery this overdue has probably lost its job (Redis flushed, enqueue failed, worker died). */
const RECONCILE_GRACE_MS = 10_000;
const ENQUEUE_TIMEOUT_MS = 5_000;
const LISTEN_RECONNECT_MS = 1_000;

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
  private readonly listener: NotificationListener;
  private stopped = false;
  private running: Promise<void> | undefined;
  private rerun = false;
  private lastProblem = 0;

  constructor(
    private readonly transactions: Transactions,
    private readonly deliveries: WebhookDeliveryLogStore,
    private readonly queue: WebhookQueue,
    private readonly outbox: EventOutboxStore,
    @Inject(databaseConfig.KEY) db: ConfigType<typeof databaseConfig>,
  ) {
    this.listener = new NotificationListener({
      url: db.url,
      connectMs: db.timeouts.connectMs,
      channel: EVENTS_NOTIFY_CHANNEL,
      applicationName: 'social-publishing-relay',
      reconnectMs: LISTEN_RECONNECT_MS,
      onNotification: () => void this.trigger(),
      onListening: () => void this.trigger(), // whatever was committed while nobody listened
      onProblem: (message) => this.problem(message),
    });
  }

  onApplicationBootstrap(): void {
    this.listener.start();
  }

  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    await this.listener.stop();
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
   * One batch in one transaction: take undispatched events (marked dispatched and locked in one
   * statement, skipping rows another worker holds, through the events module's EventOutboxStore), create
   * their deliveries, enqueue the jobs, commit. Deliveries are committed before the jobs exist
   * (autocommit, outside the event transaction) so a worker never sees a job without its row; if
   * enqueueing fails the transaction rolls back, the events stay undispatched and the next pass finds the
   * same deliveries again (unique per subscription and event).
   */
  async relayBatch(): Promise<number> {
    if (!this.queue.isReady()) {
      if (!this.queue.isConnecting()) {
        this.problem('Redis is unreachable: outbox events wait in Postgres until it is back');
      }
      return 0;
    }
    return this.transactions.run(async (em) => {
      const events = await this.outbox.takeUndispatched(em, RELAY_BATCH);
      if (events.length === 0) return 0;
      const deliveries = await this.deliveries.insertForEvents(events);
      // Only first attempts: a delivery already attempted is scheduled by its processor (and, if that
      // job is lost, by the reconciler).
      const due: DueAttempt[] = deliveries
        .filter((d) => d.status === 'pending' && d.attempts === 0)
        .map((d) => ({ deliveryId: d.id, attempt: 1, delayMs: d.delayMs }));
      await this.queue.enqueueAttempts(due, ENQUEUE_TIMEOUT_MS);
      return events.length;
    });
  }

  /**
   * Re-enqueues pending deliveries that are overdue: their job was lost (Redis flushed or down when
   * a retry was scheduled, a worker died mid-attempt after its lease). Job ids are deterministic,
   * so a job that does exist is not duplicated, and the claim in the database guards the rest.
   */
  async reconcile(): Promise<number> {
    if (!this.queue.isReady()) return 0;
    const rows = await this.deliveries.overduePending(RECONCILE_GRACE_MS, RECONCILE_BATCH);
    await this.queue.enqueueAttempts(
      rows.map((r) => ({ deliveryId: r.id, attempt: r.attempts + 1 })),
      ENQUEUE_TIMEOUT_MS,
    );
    return rows.length;
  }

  /** Warns at most every 10 s about the same kind of trouble. */
  private problem(message: string): void {
    const now = Date.now();
    if (now - this.lastProblem < 10_000) return;
    this.lastProblem = now;
    this.logger.warn(message);
  }
}
