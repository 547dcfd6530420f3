import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { ConfigType } from '@nestjs/config';
import { DataSource } from 'typeorm';
import { publishingConfig } from '../config';
import { PeriodicJobs } from '../scheduling/periodic-jobs.service';
import { EnqueueableTarget, PublishQueue } from './publish.queue';

const BATCH = 1000;

/** Name of the periodic job (PeriodicJobs) that reconciles the publish queue with Postgres. */
export const RECONCILE_JOB = 'posts.reconcile';

/**
 * Postgres is the source of truth for schedules. Every PUBLISH_RECONCILE_SECONDS, as the periodic job
 * `posts.reconcile` (one process at a time): targets due within the horizon are enqueued again (Bull
 * ignores a job id it already holds, so this only restores what Redis lost), and targets whose
 * claim expired (their worker died mid-publish) go back to pending.
 */
@Injectable()
export class PublishReconcileJob implements OnModuleInit {
  constructor(
    private readonly dataSource: DataSource,
    private readonly queue: PublishQueue,
    private readonly periodicJobs: PeriodicJobs,
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
    return this.dataSource.transaction(async (em) => {
      await em.query(
        `UPDATE post_targets SET status = 'pending', claim_job_id = NULL, claimed_until = NULL, due_at = now(), updated_at = now()
          WHERE status = 'publishing' AND claimed_until < now()`,
      );
      let total = 0;
      let after = '00000000-0000-0000-0000-000000000000';
      for (;;) {
        const rows: Array<{ id: string; publication: number; attempts: number; due_at: Date }> = await em.query(
          `SELECT t.id, t.publication, t.attempts, t.due_at FROM post_targets t JOIN posts p ON p.id = t.post_id
            WHERE t.status = 'pending' AND t.due_at IS NOT NULL AND t.due_at <= now() + ($1 || ' milliseconds')::interval
              AND p.status IN ('scheduled', 'publishing') AND t.publication = p.publication AND t.id > $2
            ORDER BY t.id LIMIT ${BATCH}`,
          [String(horizonMs), after],
        );
        if (rows.length === 0) break;
        const targets: EnqueueableTarget[] = rows.map((r) => ({
          id: r.id,
          publication: r.publication,
          attempts: r.attempts,
          dueAt: r.due_at,
        }));
        total += await this.queue.enqueue(targets);
        after = rows[rows.length - 1].id;
        if (rows.length < BATCH) break;
      }
      return total;
    });
  }
}
