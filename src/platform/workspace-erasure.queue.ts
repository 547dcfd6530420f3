import { BullModule, InjectQueue } from '@nestjs/bull';
import { DynamicModule, Injectable, Logger } from '@nestjs/common';
import type { Job, Queue } from 'bull';
import { boundedQueueCall } from '../queue/bounded-queue-call';
import { stopTakingJobs } from '../queue/stop-taking';

export const WORKSPACE_ERASURE_QUEUE = 'workspace-erasure';
export const WORKSPACE_ERASURE_JOB = 'erase-workspace';

export interface WorkspaceErasureJobData {
  workspaceId: string;
}

/**
 * The erasures' queue (docs/adr/0052): one job per workspace (its id is the job id, so enqueueing twice,
 * the request and then the reconciler, is one job). The job names the workspace only: what is left to
 * erase is what the database still holds.
 */
@Injectable()
export class WorkspaceErasureQueue {
  private readonly logger = new Logger('WorkspaceErasureQueue');

  constructor(@InjectQueue(WORKSPACE_ERASURE_QUEUE) private readonly queue: Queue<WorkspaceErasureJobData>) {}

  static registration(): DynamicModule {
    return BullModule.registerQueue({ name: WORKSPACE_ERASURE_QUEUE });
  }

  /** Adds (or keeps) the workspace's erasure job. A failure is logged: the reconciler catches up. */
  async enqueue(workspaceId: string): Promise<boolean> {
    try {
      await boundedQueueCall(this.queue, 'accept the erasure job', () =>
        this.queue.add(
          WORKSPACE_ERASURE_JOB,
          { workspaceId },
          { jobId: `erase:${workspaceId}`, removeOnComplete: true, removeOnFail: true, attempts: 1 },
        ),
      );
      return true;
    } catch (err) {
      this.logger.warn(
        `Could not enqueue the erasure of ${workspaceId}, the reconciler will: ${(err as Error).message}`,
      );
      return false;
    }
  }

  stopTaking(): Promise<void> {
    return stopTakingJobs(this.queue);
  }

  close(): Promise<void> {
    return this.queue.close();
  }

  process(handler: (data: WorkspaceErasureJobData) => Promise<unknown>): void {
    void this.queue.process(WORKSPACE_ERASURE_JOB, 1, (job: Job<WorkspaceErasureJobData>) => handler(job.data));
  }
}
