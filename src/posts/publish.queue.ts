import { BullModule, InjectQueue } from '@nestjs/bull';
import { DynamicModule, Injectable, Logger } from '@nestjs/common';
import { ConfigType } from '@nestjs/config';
import type { Job, Queue } from 'bull';
import { publishingConfig } from '../config';
import { boundedQueueCall } from '../queue/bounded-queue-call';
import { stopTakingJobs } from '../queue/stop-taking';

export const PUBLISH_QUEUE = 'publish';
export const PUBLISH_JOB = 'publish-target';

export interface PublishJobData {
  targetId: string;
  publication: number;
}

export interface EnqueueableTarget {
  id: string;
  publication: number;
  attempts: number;
  dueAt: Date | null;
  /**
   * A poll of a network's processing (docs/adr: video pipeline): the attempt was given back, so the job
   * id also names the poll's time, unlike the job that is still running under the attempt's id.
   */
  poll?: boolean;
}

/**
 * Adding and cancelling publish jobs, bounded so a request never waits on Redis for long.
 * Jobs carry ids; the job id is deterministic, so enqueueing twice is a no-op.
 */
@Injectable()
export class PublishQueue {
  private readonly logger = new Logger('PublishQueue');

  constructor(@InjectQueue(PUBLISH_QUEUE) private readonly queue: Queue<PublishJobData>) {}

  /** The queue's registration, imported by PostsModule (stall detection from PUBLISH_* config). */
  static registration(): DynamicModule {
    return BullModule.registerQueueAsync({
      name: PUBLISH_QUEUE,
      inject: [publishingConfig.KEY],
      useFactory: (cfg: ConfigType<typeof publishingConfig>) => ({
        settings: { stalledInterval: cfg.stalledIntervalMs, lockDuration: cfg.stalledIntervalMs, maxStalledCount: 5 },
      }),
    });
  }

  static jobId(t: Pick<EnqueueableTarget, 'id' | 'publication' | 'attempts'> & Partial<EnqueueableTarget>): string {
    const base = `publish:${t.id}:${t.publication}:${t.attempts}`;
    return t.poll && t.dueAt ? `${base}:poll-${t.dueAt.getTime()}` : base;
  }

  /** Adds (or keeps) one delayed job per target. Failures are logged: the reconciler catches up. */
  async enqueue(targets: EnqueueableTarget[]): Promise<number> {
    const due = targets.filter((t) => t.dueAt);
    if (due.length === 0) return 0;
    const now = Date.now();
    try {
      await boundedQueueCall(this.queue, 'accept the publish jobs', () =>
        this.queue.addBulk(
          due.map((t) => ({
            name: PUBLISH_JOB,
            data: { targetId: t.id, publication: t.publication },
            opts: {
              jobId: PublishQueue.jobId(t),
              delay: Math.max(0, t.dueAt!.getTime() - now),
              removeOnComplete: true,
              removeOnFail: true,
              attempts: 1,
            },
          })),
        ),
      );
      return due.length;
    } catch (err) {
      this.logger.warn(
        `Could not enqueue ${due.length} publish job(s), the reconciler will: ${(err as Error).message}`,
      );
      return 0;
    }
  }

  /**
   * Removes waiting/delayed jobs of these targets. Best effort and bounded: a job left behind (Redis
   * away or slow) finds its target no longer due when it runs, and does nothing.
   */
  async cancel(targets: Array<Pick<EnqueueableTarget, 'id' | 'publication' | 'attempts'>>): Promise<void> {
    if (targets.length === 0) return;
    const removeAll = () =>
      Promise.all(
        targets.map(async (t) => {
          const job = await this.queue.getJob(PublishQueue.jobId(t));
          if (job && !(await job.isActive())) await job.remove();
        }),
      );
    try {
      await boundedQueueCall(this.queue, 'remove the publish jobs', removeAll);
    } catch (err) {
      this.logger.warn(`Left ${targets.length} stale publish job(s) in the queue: ${(err as Error).message}`);
    }
  }

  /** Stops taking new jobs in this process (jobs running here go on): the first step of the SIGTERM drain. */
  stopTaking(): Promise<void> {
    return stopTakingJobs(this.queue);
  }

  /** Stops taking jobs and resolves once the ones running here have finished (Bull's close waits for them). */
  close(): Promise<void> {
    return this.queue.close();
  }

  /** Runs `handler` for publish jobs, `concurrency` at a time, in this process. */
  process(concurrency: number, handler: (data: PublishJobData, jobId: string) => Promise<unknown>): void {
    void this.queue.process(PUBLISH_JOB, concurrency, (job: Job<PublishJobData>) => handler(job.data, String(job.id)));
  }

  /** Data of the jobs waiting for their time (delayed), for tests and operators. */
  async delayedJobs(): Promise<PublishJobData[]> {
    return (await this.queue.getDelayed()).map((job) => job.data);
  }
}
