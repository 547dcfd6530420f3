import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { ConfigType } from '@nestjs/config';
import { DataSource } from 'typeorm';
import { publishingConfig } from '../config';
import { EnqueueableTarget, PublishQueue } from './publish.queue';

const RECONCILE_LOCK = 727_100_010;
const BATCH = 1000;

/**
 * Postgres is the source of truth for schedules. Periodically, in every worker (a transaction
 * advisory lock lets one run at a time): targets due within the horizon are enqueued again (Bull
 * ignores a job id it already holds, so this only restores what Redis lost), and targets whose
 * claim expired (their worker died mid-publish) go back to pending. A timer, not a Bull
 * repeatable job, so it survives Redis being flushed.
 */
@Injectable()
export class PublishReconciler implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('PublishReconciler');
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;

  constructor(
    private readonly dataSource: DataSource,
    private readonly queue: PublishQueue,
    @Inject(publishingConfig.KEY) private readonly cfg: ConfigType<typeof publishingConfig>,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.tick(), this.cfg.reconcileMs);
    this.timer.unref();
    void this.tick();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  private async tick(): Promise<void> {
    if (this.running) return;
    this.running = this.reconcile()
      .then((n) => {
        if (n > 0) this.logger.log(`Re-enqueued ${n} publish job(s)`);
      })
      .catch((err: Error) => this.logger.warn(`Reconcile failed: ${err.message}`))
      .finally(() => (this.running = undefined));
    await this.running;
  }

  /** One pass; returns the number of jobs handed to the queue. */
  async reconcile(): Promise<number> {
    const horizonMs = Math.max(this.cfg.reconcileMs * 3, 10 * 60_000);
    return this.dataSource.transaction(async (em) => {
      const [{ locked }] = await em.query<[{ locked: boolean }]>('SELECT pg_try_advisory_xact_lock($1) AS locked', [
        RECONCILE_LOCK,
      ]);
      if (!locked) return 0;
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
