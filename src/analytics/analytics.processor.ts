import { BeforeApplicationShutdown, Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { ShutdownDeadline } from '../queue/shutdown-deadline';
import { AnalyticsCollector } from './analytics-collector.service';
import { AnalyticsQueue } from './analytics.queue';

const REFRESH_CONCURRENCY = 4;

/** Thin: a refresh job names a post; the collector reads and stores its figures. */
@Injectable()
export class AnalyticsProcessor implements OnModuleInit, OnModuleDestroy, BeforeApplicationShutdown {
  private readonly logger = new Logger('AnalyticsProcessor');

  constructor(
    private readonly queue: AnalyticsQueue,
    private readonly collector: AnalyticsCollector,
    private readonly shutdown: ShutdownDeadline,
  ) {}

  onModuleInit(): void {
    this.queue.processCollectPost(REFRESH_CONCURRENCY, ({ postId }) =>
      this.collector.collectPost(postId).catch((err: Error) => {
        this.logger.error({ msg: 'Analytics refresh failed', postId, err: err.message });
        throw err;
      }),
    );
  }

  /** SIGTERM, first step (every processor at once): take no new job. */
  async onModuleDestroy(): Promise<void> {
    await this.shutdown.wait(this.queue.stopTaking());
  }

  /**
   * Lets refreshes in flight write their figures while the database is still open. One still running at
   * the shared deadline is released: Bull sees its job stalled and another worker runs it again (reading
   * figures twice is harmless: changes are detected against the stored ones under row locks).
   */
  async beforeApplicationShutdown(): Promise<void> {
    await this.shutdown.wait(this.queue.close());
  }
}
