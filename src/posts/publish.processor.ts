import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { ConfigType } from '@nestjs/config';
import { appConfig, publishingConfig } from '../config';
import { PublishQueue } from './publish.queue';
import { PublisherService } from './publisher.service';

/** Thin: a job names a target; PublisherService re-reads state and decides. */
@Injectable()
export class PublishProcessor implements OnModuleInit, BeforeApplicationShutdown {
  private readonly logger = new Logger('PublishProcessor');

  constructor(
    private readonly queue: PublishQueue,
    private readonly publisher: PublisherService,
    @Inject(publishingConfig.KEY) private readonly cfg: ConfigType<typeof publishingConfig>,
    @Inject(appConfig.KEY) private readonly app: ConfigType<typeof appConfig>,
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

  /**
   * SIGTERM drain: stop taking jobs and let the ones in flight finish and record their outcome while the
   * database is still open. A job still running after SHUTDOWN_TIMEOUT_MS is released: its target stays
   * claimed until the claim expires, then the reconciler hands it to another worker, which publishes with
   * the same idempotency key.
   */
  async beforeApplicationShutdown(): Promise<void> {
    await this.queue.drain(this.app.shutdownTimeoutMs);
  }
}
