import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { ConfigType } from '@nestjs/config';
import { createLimiter, Limiter } from '../common/concurrency-limiter';
import { publishingConfig } from '../config';
import { ShutdownDeadline } from '../queue/shutdown-deadline';
import { PublishQueue } from './publish.queue';
import { PublisherService } from './publisher.service';

/**
 * Thin: a job names a target, or a batch of targets due now; PublisherService re-reads each one's state
 * and decides. PUBLISH_CONCURRENCY bounds the targets published at once in this process, whichever
 * jobs they came in.
 */
@Injectable()
export class PublishProcessor implements OnModuleInit, OnModuleDestroy, BeforeApplicationShutdown {
  private readonly logger = new Logger('PublishProcessor');
  private readonly slots: Limiter;

  constructor(
    private readonly queue: PublishQueue,
    private readonly publisher: PublisherService,
    private readonly shutdown: ShutdownDeadline,
    @Inject(publishingConfig.KEY) private readonly cfg: ConfigType<typeof publishingConfig>,
  ) {
    this.slots = createLimiter(cfg.concurrency);
  }

  onModuleInit(): void {
    this.queue.process(this.cfg.concurrency, async (targets, jobId) => {
      const results = await Promise.allSettled(
        targets.map((t) => this.slots(() => this.publisher.publishTarget(t.targetId, t.publication, jobId))),
      );
      const failed = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as Error] : []));
      if (failed.length === 0) return;
      // Database unreachable and the like: leave the targets to the reconciler.
      this.logger.error({ msg: 'Publish job failed', jobId, failed: failed.length, err: failed[0].message });
      throw failed[0];
    });
  }

  /** SIGTERM, first step (every processor at once): take no new job. */
  async onModuleDestroy(): Promise<void> {
    await this.shutdown.wait(this.queue.stopTaking());
  }

  /**
   * SIGTERM drain: let the jobs in flight finish and record their outcome while the database is still
   * open. A job still running at the deadline (SHUTDOWN_TIMEOUT_MS, shared by every processor) is
   * released: its target stays claimed until the claim expires, then the reconciler hands it to another
   * worker, which publishes with the same idempotency key.
   */
  async beforeApplicationShutdown(): Promise<void> {
    await this.shutdown.wait(this.queue.close());
  }
}
