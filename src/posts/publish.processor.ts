import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { ConfigType } from '@nestjs/config';
import { publishingConfig } from '../config';
import { ShutdownDeadline } from '../queue/shutdown-deadline';
import { PublishQueue } from './publish.queue';
import { PublisherService } from './publisher.service';

/** Thin: a job names a target; PublisherService re-reads state and decides. */
@Injectable()
export class PublishProcessor implements OnModuleInit, OnModuleDestroy, BeforeApplicationShutdown {
  private readonly logger = new Logger('PublishProcessor');

  constructor(
    private readonly queue: PublishQueue,
    private readonly publisher: PublisherService,
    private readonly shutdown: ShutdownDeadline,
    @Inject(publishingConfig.KEY) private readonly cfg: ConfigType<typeof publishingConfig>,
  ) {}

  onModuleInit(): void {
    this.queue.process(this.cfg.concurrency, (data, jobId) =>
      this.publisher.publishTarget(data.targetId, data.publication, jobId).catch((err: Error) => {
        // Database unreachable and the like: leave the target to the reconciler.
        this.logger.error({ msg: 'Publish job failed', jobId, err: err.message });
        throw err;
      }),
    );
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
