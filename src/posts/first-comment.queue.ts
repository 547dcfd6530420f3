import { BullModule, InjectQueue } from '@nestjs/bull';
import { DynamicModule, Injectable, Logger } from '@nestjs/common';
import { ConfigType } from '@nestjs/config';
import type { Job, Queue } from 'bull';
import { publishingConfig } from '../config';
import { boundedQueueCall } from '../queue/bounded-queue-call';
import { stopTakingJobs } from '../queue/stop-taking';

export const FIRST_COMMENT_QUEUE = 'first-comment';
export const FIRST_COMMENT_JOB = 'first-comment';

export interface FirstCommentJobData {
  targetId: string;
  publication: number;
}

/** A target whose first comment is due (or will be at `dueAt`; null: now). */
export interface DueComment {
  id: string;
  publication: number;
  attempts: number;
  dueAt: Date | null;
}

/**
 * The first comments' own queue (docs/adr/0035): one job per target and attempt, with a deterministic
 * job id, so enqueueing twice (the publisher after its commit, the reconciler later) is a no-op. A job
 * only names its target: the comment's state is in Postgres.
 */
@Injectable()
export class FirstCommentQueue {
  private readonly logger = new Logger('FirstCommentQueue');

  constructor(@InjectQueue(FIRST_COMMENT_QUEUE) private readonly queue: Queue<FirstCommentJobData>) {}

  /** The queue's registration, imported by PostsModule (stall detection as for publish jobs). */
  static registration(): DynamicModule {
    return BullModule.registerQueueAsync({
      name: FIRST_COMMENT_QUEUE,
      inject: [publishingConfig.KEY],
      useFactory: (cfg: ConfigType<typeof publishingConfig>) => ({
        settings: { stalledInterval: cfg.stalledIntervalMs, lockDuration: cfg.stalledIntervalMs, maxStalledCount: 5 },
      }),
    });
  }

  static jobId(c: Pick<DueComment, 'id' | 'publication' | 'attempts'>): string {
    return `first-comment:${c.id}:${c.publication}:${c.attempts}`;
  }

  /** Adds (or keeps) one job per comment. Failures are logged: the reconciler catches up. */
  async enqueue(comments: DueComment[]): Promise<number> {
    if (comments.length === 0) return 0;
    const now = Date.now();
    try {
      await boundedQueueCall(this.queue, 'accept the first-comment jobs', () =>
        this.queue.addBulk(
          comments.map((c) => ({
            name: FIRST_COMMENT_JOB,
            data: { targetId: c.id, publication: c.publication },
            opts: {
              jobId: FirstCommentQueue.jobId(c),
              delay: Math.max(0, (c.dueAt?.getTime() ?? now) - now),
              removeOnComplete: true,
              removeOnFail: true,
              attempts: 1,
            },
          })),
        ),
      );
      return comments.length;
    } catch (err) {
      this.logger.warn(
        `Could not enqueue ${comments.length} first-comment job(s), the reconciler will: ${(err as Error).message}`,
      );
      return 0;
    }
  }

  /** Stops taking new jobs in this process (the first step of the SIGTERM drain). */
  stopTaking(): Promise<void> {
    return stopTakingJobs(this.queue);
  }

  /** Stops taking jobs and resolves once the ones running here have finished. */
  close(): Promise<void> {
    return this.queue.close();
  }

  /** Runs `handler` for first-comment jobs, `concurrency` at a time, in this process. */
  process(concurrency: number, handler: (data: FirstCommentJobData, jobId: string) => Promise<unknown>): void {
    void this.queue.process(FIRST_COMMENT_JOB, concurrency, (job: Job<FirstCommentJobData>) =>
      handler(job.data, String(job.id)),
    );
  }
}
