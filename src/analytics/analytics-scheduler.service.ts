import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { ConfigType } from '@nestjs/config';
import { DataSource } from 'typeorm';
import { analyticsConfig } from '../config/analytics.config';
import { AnalyticsCollector, CollectionStats } from './analytics-collector.service';

/** Session advisory lock key of the collection run (the publish reconciler uses 727_100_010). */
export const ANALYTICS_RUN_LOCK = 727_100_020;

/**
 * Starts a collection run every ANALYTICS_INTERVAL_SECONDS in every worker process; a session-level
 * Postgres advisory lock, held on a dedicated connection for the whole run, lets one run at a time
 * across workers (the others skip that tick). A timer rather than a Bull repeatable job: the schedule
 * lives in Postgres (target_metrics.next_collect_at), so flushing Redis loses nothing, and a worker
 * that dies mid-run releases the lock with its connection; what it did not write stays due.
 */
@Injectable()
export class AnalyticsScheduler implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('AnalyticsScheduler');
  private timer?: NodeJS.Timeout;
  private running?: Promise<CollectionStats | null>;
  private stopping = false;

  constructor(
    private readonly dataSource: DataSource,
    private readonly collector: AnalyticsCollector,
    @Inject(analyticsConfig.KEY) private readonly cfg: ConfigType<typeof analyticsConfig>,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.tick(), this.cfg.intervalMs);
    this.timer.unref();
    void this.tick();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopping = true;
    clearInterval(this.timer);
    await this.running;
  }

  /**
   * Waits for a run of this process in progress, then runs once more. Null when another worker holds
   * the lock. For operators and benchmarks; the timer is what normally drives collection.
   */
  async runNow(): Promise<CollectionStats | null> {
    await this.running;
    return this.tick();
  }

  private tick(): Promise<CollectionStats | null> {
    if (this.running || this.stopping) return this.running ?? Promise.resolve(null);
    this.running = this.runLocked()
      .then((stats) => {
        if (stats && stats.targets > 0) this.logger.log({ msg: 'Analytics collected', ...stats });
        return stats;
      })
      .catch((err: Error) => {
        this.logger.warn(`Analytics collection failed: ${err.message}`);
        return null;
      })
      .finally(() => (this.running = undefined));
    return this.running;
  }

  private async runLocked(): Promise<CollectionStats | null> {
    const runner = this.dataSource.createQueryRunner();
    await runner.connect();
    try {
      const [{ locked }] = (await runner.query('SELECT pg_try_advisory_lock($1) AS locked', [ANALYTICS_RUN_LOCK])) as [
        { locked: boolean },
      ];
      if (!locked) return null;
      try {
        return await this.collector.collectDue(() => this.stopping);
      } finally {
        await runner.query('SELECT pg_advisory_unlock($1)', [ANALYTICS_RUN_LOCK]);
      }
    } finally {
      await runner.release();
    }
  }
}
