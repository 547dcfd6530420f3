import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { ConfigType } from '@nestjs/config';
import { publishingConfig } from '../config';
import { ShutdownDeadline } from '../queue/shutdown-deadline';
import { FirstCommentQueue } from './first-comment.queue';
import { FirstCommentService } from './first-comment.service';

/** Thin: a job names a target; FirstCommentService re-reads its comment's state and decides. */
@Injectable()
export class FirstCommentProcessor implements OnModuleInit, OnModuleDestroy, BeforeApplicationShutdown {
  private readonly logger = new Logger('FirstCommentProcessor');

  constructor(
    private readonly queue: FirstCommentQueue,
    private readonly comments: FirstCommentService,
    private readonly shutdown: ShutdownDeadline,
    @Inject(publishingConfig.KEY) private readonly cfg: ConfigType<typeof publishingConfig>,
  ) {}

  onModuleInit(): void {
    this.queue.process(this.cfg.concurrency, (data, jobId) =>
      this.comments.commentTarget(data.targetId, data.publication, jobId).catch((err: Error) => {
        // Database unreachable and the like: the claim expires and the reconciler enqueues it again.
        this.logger.error({ msg: 'First-comment job failed', jobId, err: err.message });
        throw err;
      }),
    );
  }

  /** SIGTERM, first step: take no new job. */
  async onModuleDestroy(): Promise<void> {
    await this.shutdown.wait(this.queue.stopTaking());
  }

  /** SIGTERM drain: let the comments in flight record their outcome (see PublishProcessor). */
  async beforeApplicationShutdown(): Promise<void> {
    await this.shutdown.wait(this.queue.close());
  }
}
