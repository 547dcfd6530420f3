import { Module } from '@nestjs/common';
import { AnalyticsCollector } from './analytics-collector.service';
import { AnalyticsEvents } from './analytics-events.service';
import { AnalyticsModule } from './analytics.module';
import { AnalyticsProcessor } from './analytics.processor';
import { AnalyticsCollectJob } from './analytics-collect.job';
import { CollectionChannels } from './collection-channels.service';
import { FiguresReader } from './figures-reader.service';
import { TargetDiscovery } from './target-discovery.service';

/** The collection side (scheduled runs and refresh jobs): loaded only where the process runs workers. */
@Module({
  imports: [AnalyticsModule],
  providers: [
    AnalyticsCollector,
    TargetDiscovery,
    FiguresReader,
    CollectionChannels,
    AnalyticsEvents,
    AnalyticsCollectJob,
    AnalyticsProcessor,
  ],
  exports: [AnalyticsCollector, AnalyticsCollectJob],
})
export class AnalyticsWorkerModule {}
