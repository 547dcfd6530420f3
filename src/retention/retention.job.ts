import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { ConfigType } from '@nestjs/config';
import { retentionConfig } from '../config/retention.config';
import { EventsService } from '../events/events.service';
import { PeriodicJobs } from '../scheduling/periodic-jobs.service';
import { SessionsService } from '../users/sessions.service';
import { WebhooksService } from '../webhooks/webhooks.service';

/** Name of the periodic job (PeriodicJobs) that prunes old rows. */
export const RETENTION_JOB = 'retention.prune';

export interface RetentionStats {
  events: number;
  deliveries: number;
  failedDeliveries: number;
  sessions: number;
}

/**
 * Prunes what grows without bound: dispatched outbox events, settled webhook deliveries with their
 * attempts and ended console sessions, after RETENTION_* days, every RETENTION_INTERVAL_SECONDS as the periodic job
 * `retention.prune` (one process at a time). Each owner module deletes its own rows, in batches that
 * skip locked rows; a shutdown stops between batches and leaves the rest for the next run.
 */
@Injectable()
export class RetentionJob implements OnModuleInit {
  constructor(
    private readonly periodicJobs: PeriodicJobs,
    private readonly events: EventsService,
    private readonly webhooks: WebhooksService,
    private readonly sessions: SessionsService,
    @Inject(retentionConfig.KEY) private readonly cfg: ConfigType<typeof retentionConfig>,
  ) {}

  onModuleInit(): void {
    this.periodicJobs.every({
      name: RETENTION_JOB,
      everyMs: this.cfg.intervalMs,
      run: (signal) => this.prune(() => signal.aborted),
      describe: (s) => (s.events + s.deliveries + s.failedDeliveries + s.sessions > 0 ? { ...s } : undefined),
    });
  }

  private async prune(stop: () => boolean): Promise<RetentionStats> {
    const { batchSize, eventsDays, deliveriesDays, failedDeliveriesDays, sessionsDays } = this.cfg;
    return {
      events: eventsDays > 0 ? await this.events.pruneDispatched(eventsDays, batchSize, stop) : 0,
      deliveries:
        deliveriesDays > 0
          ? await this.webhooks.pruneDeliveries(['succeeded', 'cancelled'], deliveriesDays, batchSize, stop)
          : 0,
      failedDeliveries:
        failedDeliveriesDays > 0
          ? await this.webhooks.pruneDeliveries(['failed'], failedDeliveriesDays, batchSize, stop)
          : 0,
      sessions: sessionsDays > 0 ? await this.sessions.pruneEnded(sessionsDays, batchSize, stop) : 0,
    };
  }
}
