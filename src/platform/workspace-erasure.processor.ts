import { BeforeApplicationShutdown, Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { ShutdownDeadline } from '../queue/shutdown-deadline';
import { PeriodicJobs } from '../scheduling/periodic-jobs.service';
import { WorkspaceErasureQueue } from './workspace-erasure.queue';
import { WorkspaceErasureService } from './workspace-erasure.service';

/** Name of the periodic job that re-enqueues unfinished erasures (a Redis flush or a crash loses none). */
export const WORKSPACE_ERASURE_RECONCILE_JOB = 'platform.erasure-reconcile';
const RECONCILE_EVERY_MS = 60_000;

/** Thin: a job names a workspace; WorkspaceErasureService reads what is left of it and erases that. */
@Injectable()
export class WorkspaceErasureProcessor implements OnModuleInit, OnModuleDestroy, BeforeApplicationShutdown {
  private readonly logger = new Logger('WorkspaceErasureProcessor');

  constructor(
    private readonly queue: WorkspaceErasureQueue,
    private readonly erasure: WorkspaceErasureService,
    private readonly shutdown: ShutdownDeadline,
    private readonly periodicJobs: PeriodicJobs,
  ) {}

  onModuleInit(): void {
    this.queue.process((data) =>
      this.erasure.erase(data.workspaceId).catch((err: Error) => {
        // The workspace stays marked: the reconciler enqueues it again and the erasure resumes.
        this.logger.error({ msg: 'Erasure job failed', workspaceId: data.workspaceId, err: err.message });
        throw err;
      }),
    );
    this.periodicJobs.every<{ enqueued: number }>({
      name: WORKSPACE_ERASURE_RECONCILE_JOB,
      everyMs: RECONCILE_EVERY_MS,
      run: async () => ({ enqueued: await this.erasure.enqueueUnfinished() }),
      describe: (s) => (s.enqueued > 0 ? { ...s } : undefined),
    });
  }

  async onModuleDestroy(): Promise<void> {
    await this.shutdown.wait(this.queue.stopTaking());
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.shutdown.wait(this.queue.close());
  }
}
