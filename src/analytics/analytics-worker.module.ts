import { Module } from '@nestjs/common';
import { AnalyticsCollector } from './analytics-collector.service';
import { AnalyticsModule } from './analytics.module';
import { AnalyticsProcessor } from './analytics.processor';
import { AnalyticsScheduler } from './analytics-scheduler.service';

/** The collection side (scheduled runs and refresh jobs): loaded only where the process runs workers. */
@Module({
  imports: [AnalyticsModule],
  providers: [AnalyticsCollector, AnalyticsScheduler, AnalyticsProcessor],
  exports: [AnalyticsCollector, AnalyticsScheduler],
})
export class AnalyticsWorkerModule {}
