import { Module } from '@nestjs/common';
import { AnalyticsCollector } from './analytics-collector.service';
import { AnalyticsEvents } from './analytics-events.service';
import { AnalyticsModule } from './analytics.module';
import { AnalyticsProcessor } from './analytics.processor';
import { AnalyticsScheduler } from './analytics-scheduler.service';
import { CollectionChannels } from './collection-channels.service';
import { MetricsReader } from './metrics-reader.service';
import { TargetDiscovery } from './target-discovery.service';

/** The collection side (scheduled runs and refresh jobs): loaded only where the process runs workers. */
@Module({
  imports: [AnalyticsModule],
  providers: [
    AnalyticsCollector,
    TargetDiscovery,
    MetricsReader,
    CollectionChannels,
    AnalyticsEvents,
    AnalyticsScheduler,
    AnalyticsProcessor,
  ],
  exports: [AnalyticsCollector, AnalyticsScheduler],
})
export class AnalyticsWorkerModule {}
