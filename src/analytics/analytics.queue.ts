import { BullModule, InjectQueue } from '@nestjs/bull';
import { DynamicModule, Injectable } from '@nestjs/common';
import type { Job, Queue } from 'bull';
import { boundedQueueCall } from '../queue/bounded-queue-call';
import { stopTakingJobs } from '../queue/stop-taking';

export const ANALYTICS_QUEUE = 'analytics';
export const COLLECT_POST_JOB = 'collect-post';

export interface CollectPostJobData {
  postId: string;
}

/** The analytics queue behind one small API (refresh requests), so a move to BullMQ touches this file only. */
@Injectable()
export class AnalyticsQueue {
  constructor(@InjectQueue(ANALYTICS_QUEUE) private readonly queue: Queue<CollectPostJobData>) {}

  /** The queue's registration, imported by AnalyticsModule. */
  static registration(): DynamicModule {
    return BullModule.registerQueue({ name: ANALYTICS_QUEUE });
  }

  /** Asks a worker to read the post's figures now. Throws (within a second) when Redis is unreachable. */
  async enqueueCollectPost(postId: string): Promise<void> {
    await boundedQueueCall(this.queue, 'accept the analytics job', () =>
      this.queue.add(
        COLLECT_POST_JOB,
        { postId },
        { attempts: 3, backoff: { type: 'exponential', delay: 1000 }, removeOnComplete: true, removeOnFail: 100 },
      ),
    );
  }

  /** Stops taking new jobs in this process (jobs running here go on): the first step of the SIGTERM drain. */
  stopTaking(): Promise<void> {
    return stopTakingJobs(this.queue);
  }

  /** Stops taking jobs and resolves once the ones running here have finished (Bull's close waits for them). */
  close(): Promise<void> {
    return this.queue.close();
  }

  /** Runs `handler` for collect-post jobs, `concurrency` at a time, in this process. */
  processCollectPost(concurrency: number, handler: (data: CollectPostJobData) => Promise<unknown>): void {
    void this.queue.process(COLLECT_POST_JOB, concurrency, (job: Job<CollectPostJobData>) => handler(job.data));
  }
}
