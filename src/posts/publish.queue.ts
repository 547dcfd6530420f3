import { InjectQueue } from '@nestjs/bull';
import { Injectable, Logger } from '@nestjs/common';
import type { Queue } from 'bull';

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
}

/**
 * The publish queue behind one small API, so a move to BullMQ touches this file only.
 * Jobs carry ids; the job id is deterministic, so enqueueing twice is a no-op.
 */
@Injectable()
export class PublishQueue {
  private readonly logger = new Logger('PublishQueue');

  constructor(@InjectQueue(PUBLISH_QUEUE) readonly queue: Queue<PublishJobData>) {}

  static jobId(t: Pick<EnqueueableTarget, 'id' | 'publication' | 'attempts'>): string {
    return `publish:${t.id}:${t.publication}:${t.attempts}`;
  }

  /** Adds (or keeps) one delayed job per target. Failures are logged: the reconciler catches up. */
  async enqueue(targets: EnqueueableTarget[]): Promise<number> {
    const due = targets.filter((t) => t.dueAt);
    if (due.length === 0) return 0;
    const now = Date.now();
    try {
      await this.queue.addBulk(
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
      );
      return due.length;
    } catch (err) {
      this.logger.warn(
        `Could not enqueue ${due.length} publish job(s), the reconciler will: ${(err as Error).message}`,
      );
      return 0;
    }
  }

  /** Removes waiting/delayed jobs of these targets (best effort; stale jobs are ignored anyway). */
  async cancel(targets: Array<Pick<EnqueueableTarget, 'id' | 'publication' | 'attempts'>>): Promise<void> {
    await Promise.all(
      targets.map(async (t) => {
        try {
          const job = await this.queue.getJob(PublishQueue.jobId(t));
          if (job && !(await job.isActive())) await job.remove();
        } catch {
          // stale jobs find nothing to do when they run
        }
      }),
    );
  }
}
