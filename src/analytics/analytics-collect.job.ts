import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { ConfigType } from '@nestjs/config';
import { analyticsConfig } from '../config/analytics.config';
import { PeriodicJobs } from '../scheduling/periodic-jobs.service';
import { AnalyticsCollector, CollectionStats } from './analytics-collector.service';

/** Name of the periodic job (PeriodicJobs) of analytics collection. */
export const COLLECT_JOB = 'analytics.collect';

/**
 * Registers the collection run as the periodic job `analytics.collect`, every
 * ANALYTICS_INTERVAL_SECONDS, one process at a time. The schedule of each post lives in Postgres
 * (target_metrics.next_collect_at), so flushing Redis loses nothing, and a worker that dies mid-run
 * releases the lock with its connection; what it did not write stays due.
 */
@Injectable()
export class AnalyticsCollectJob implements OnModuleInit {
  constructor(
    private readonly periodicJobs: PeriodicJobs,
    private readonly collector: AnalyticsCollector,
    @Inject(analyticsConfig.KEY) private readonly cfg: ConfigType<typeof analyticsConfig>,
  ) {}

  onModuleInit(): void {
    this.periodicJobs.every<CollectionStats>({
      name: COLLECT_JOB,
      everyMs: this.cfg.intervalMs,
      run: (signal) => this.collector.collectDue(() => signal.aborted),
      describe: (stats) => (stats.targets > 0 ? { ...stats } : undefined),
    });
  }

  /**
   * Waits for a run of this process in progress, then runs once more. Null when another worker holds
   * the lock. For operators and benchmarks; the periodic job is what normally drives collection.
   */
  runNow(): Promise<CollectionStats | null> {
    return this.periodicJobs.runNow<CollectionStats>(COLLECT_JOB);
  }
}
