import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { ConfigType } from '@nestjs/config';
import type { Job } from 'bull';
import { publishingConfig } from '../config';
import { PublishJobData, PUBLISH_JOB, PublishQueue } from './publish.queue';
import { PublisherService } from './publisher.service';

/** Thin: a job names a target; PublisherService re-reads state and decides. */
@Injectable()
export class PublishProcessor implements OnModuleInit {
  private readonly logger = new Logger('PublishProcessor');

  constructor(
    private readonly queue: PublishQueue,
    private readonly publisher: PublisherService,
    @Inject(publishingConfig.KEY) private readonly cfg: ConfigType<typeof publishingConfig>,
  ) {}

  onModuleInit(): void {
    void this.queue.queue.process(PUBLISH_JOB, this.cfg.concurrency, (job: Job<PublishJobData>) =>
      this.publisher.publishTarget(job.data.targetId, job.data.publication, String(job.id)).catch((err: Error) => {
        // Database unreachable and the like: leave the target to the reconciler.
        this.logger.error({ msg: 'Publish job failed', jobId: job.id, err: err.message });
        throw err;
      }),
    );
  }
}
