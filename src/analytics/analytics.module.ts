import { Module } from '@nestjs/common';
import { ChannelsModule } from '../channels/channels.module';
import { OAuthModule } from '../oauth/oauth.module';
import { PostsModule } from '../posts/posts.module';
import { AnalyticsQueue } from './analytics.queue';
import { AnalyticsController } from './analytics.controller';
import { AnalyticsService } from './analytics.service';
import { TargetMetricsStore } from './target-metrics.store';

/** Analytics reads and refresh requests: loaded by every role. Posts and channels are read through their modules. */
@Module({
  imports: [AnalyticsQueue.registration(), ChannelsModule, OAuthModule, PostsModule],
  controllers: [AnalyticsController],
  providers: [AnalyticsService, AnalyticsQueue, TargetMetricsStore],
  exports: [AnalyticsService, AnalyticsQueue, TargetMetricsStore, ChannelsModule, OAuthModule, PostsModule],
})
export class AnalyticsModule {}
