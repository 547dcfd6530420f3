import { Module } from '@nestjs/common';
import { ChannelsModule } from '../channels/channels.module';
import { OAuthModule } from '../oauth/oauth.module';
import { AnalyticsQueue } from './analytics.queue';
import { AnalyticsController } from './analytics.controller';
import { AnalyticsService } from './analytics.service';

/** Analytics reads and refresh requests: loaded by every role. */
@Module({
  imports: [AnalyticsQueue.registration(), ChannelsModule, OAuthModule],
  controllers: [AnalyticsController],
  providers: [AnalyticsService, AnalyticsQueue],
  exports: [AnalyticsService, AnalyticsQueue, ChannelsModule, OAuthModule],
})
export class AnalyticsModule {}
