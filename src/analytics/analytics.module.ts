import { BullModule } from '@nestjs/bull';
import { Module } from '@nestjs/common';
import { ChannelsModule } from '../channels/channels.module';
import { ANALYTICS_QUEUE, AnalyticsQueue } from './analytics.queue';
import { AnalyticsController } from './analytics.controller';
import { AnalyticsService } from './analytics.service';

/** Analytics reads and refresh requests: loaded by every role. */
@Module({
  imports: [BullModule.registerQueue({ name: ANALYTICS_QUEUE }), ChannelsModule],
  controllers: [AnalyticsController],
  providers: [AnalyticsService, AnalyticsQueue],
  exports: [AnalyticsService, AnalyticsQueue, ChannelsModule],
})
export class AnalyticsModule {}
