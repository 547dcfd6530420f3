import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { ConfigType } from '@nestjs/config';
import { publishingConfig } from '../config';
import { Transactions } from '../database/transactions';
import { PeriodicJobs } from '../scheduling/periodic-jobs.service';
import { FirstCommentQueue } from './first-comment.queue';
import { FirstCommentsStore } from './first-comments.store';
import { PublishQueue } from './publish.queue';
import { PublishingStore } from './publishing.store';

const BATCH = 1000;

/** Name of the periodic job (PeriodicJobs) that reconciles the publish queue with Postgres. */
export const RECONCILE_JOB = 'posts.reconcile';

/**
 * Postgres is the source of truth for schedules. Every PUBLISH_RECONCILE_SECONDS, as the periodic job
 * `posts.reconcile` (one process at a time): targets due within the horizon are enqueued again (Bull
 * ignores a job id it already holds, so this only restores what Redis lost), and targets whose
 * claim expired (their worker died mid-publish) go back to pending. Pending first comments of
 * published targets are enqueued on the first-comment queue the same way.
 */
@Injectable()
export class PublishReconcileJob implements OnModuleInit {
  constructor(
    private readonly store: PublishingStore,
    private readonly transactions: Transactions,
    private readonly queue: PublishQueue,
    private readonly periodicJobs: PeriodicJobs,
    private readonly comments: FirstCommentsStore,
    private readonly commentQueue: FirstCommentQueue,
    @Inject(publishingConfig.KEY) private readonly cfg: ConfigType<typeof publishingConfig>,
  ) {}

  onModuleInit(): void {
    this.periodicJobs.every({
      name: RECONCILE_JOB,
      everyMs: this.cfg.reconcileMs,
      run: () => this.reconcile(),
      describe: (n) => (n > 0 ? { reEnqueued: n } : undefined),
    });
  }

  /** One pass; returns the number of jobs handed to the queue. */
  async reconcile(): Promise<number> {
    const horizonMs = Math.max(this.cfg.reconcileMs * 3, 10 * 60_000);
    return this.transactions.run(async (em) => {
      await this.store.releaseExpiredClaims(em);
      let total = 0;
      let after = '00000000-0000-0000-0000-000000000000';
      for (;;) {
        const targets = await this.store.dueTargets(em, horizonMs, after, BATCH);
        if (targets.length === 0) break;
        total += await this.queue.enqueue(targets, { batch: false });
        after = targets[targets.length - 1].id;
        if (targets.length < BATCH) break;
      }
      // First comments of published targets (docs/adr/0035): restored the same way, claims that
      // expired included (their claim condition takes them over).
      after = '00000000-0000-0000-0000-000000000000';
      for (;;) {
        const comments = await this.comments.due(em, horizonMs, after, BATCH);
        if (comments.length === 0) break;
        total += await this.commentQueue.enqueue(comments);
        after = comments[comments.length - 1].id;
        if (comments.length < BATCH) break;
      }
      return total;
    });
  }
}
