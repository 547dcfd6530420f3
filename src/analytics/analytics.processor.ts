import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { AnalyticsCollector } from './analytics-collector.service';
import { AnalyticsQueue } from './analytics.queue';

const REFRESH_CONCURRENCY = 4;

/** Thin: a refresh job names a post; the collector reads and stores its figures. */
@Injectable()
export class AnalyticsProcessor implements OnModuleInit {
  private readonly logger = new Logger('AnalyticsProcessor');

  constructor(
    private readonly queue: AnalyticsQueue,
    private readonly collector: AnalyticsCollector,
  ) {}

  onModuleInit(): void {
    this.queue.processCollectPost(REFRESH_CONCURRENCY, ({ postId }) =>
      this.collector.collectPost(postId).catch((err: Error) => {
        this.logger.error({ msg: 'Analytics refresh failed', postId, err: err.message });
        throw err;
      }),
    );
  }
}
