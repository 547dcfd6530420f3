import { DynamicModule, Global, Module, Type } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_PIPE } from '@nestjs/core';
import { AnalyticsWorkerModule } from './analytics/analytics-worker.module';
import { AnalyticsModule } from './analytics/analytics.module';
import { ANALYTICS_EVENT_SCHEMAS } from './analytics/analytics.events';
import { AppRole, runsWorkers } from './app-role';
import { AuthModule } from './auth/auth.module';
import { RequestGuard } from './auth/request.guard';
import { ChannelsModule } from './channels/channels.module';
import { CHANNEL_EVENT_SCHEMAS } from './channels/channel.events';
import { CHANNEL_OAUTH } from './channels/channel-oauth.port';
import { ConnectLinksModule } from './connect-links/connect-links.module';
import { ConnectLinksService } from './connect-links/connect-links.service';
import { ConsoleModule } from './console/console.module';
import { CryptoModule } from './common/crypto/crypto.module';
import { AllExceptionsFilter } from './common/errors';
import { createValidationPipe } from './common/validation.pipe';
import { configModule } from './config';
import { DatabaseModule } from './database/database.module';
import type { EventSchemas } from './events/event-payloads';
import { EventsModule } from './events/events.module';
import { HealthModule } from './health/health.module';
import { HealthWorkerModule } from './health/health-worker.module';
import { STORAGE_PING } from './health/storage-ping.port';
import { VIDEO_TOOLS } from './health/video-tools.port';
import { IdempotencyWorkerModule } from './idempotency/idempotency-worker.module';
import { IdempotencyModule } from './idempotency/idempotency.module';
import { MediaWorkerModule } from './media/media-worker.module';
import { VideoToolkit } from './media/video/video-toolkit.service';
import { MediaModule } from './media/media.module';
import { MEDIA_USAGE } from './media/media-usage.port';
import { SLOT_OCCUPANCY } from './posting-schedules/slot-occupancy.port';
import { MEDIA_STORAGE } from './media/storage/media-storage.interface';
import { MEDIA_EVENT_SCHEMAS } from './media/media.events';
import { McpModule } from './mcp/mcp.module';
import { MetricsModule } from './metrics/metrics.module';
import { CONNECT_LINK_GATE } from './oauth/connect-link-gate.port';
import { OAuthModule } from './oauth/oauth.module';
import { OAuthService } from './oauth/oauth.service';
import { OAuthWorkerModule } from './oauth/oauth-worker.module';
import { OAuthServerWorkerModule } from './oauth-server/oauth-server-worker.module';
import { OAuthServerModule } from './oauth-server/oauth-server.module';
import { OAuthServerService } from './oauth-server/oauth-server.service';
import { ACCESS_TOKENS } from './auth/access-tokens.port';
import { ProvidersModule } from './providers/providers.module';
import { SandboxModule } from './sandbox/sandbox.module';
import { QueueModule } from './queue/queue.module';
import { RateLimitModule } from './rate-limit/rate-limit.module';
import { RedisModule } from './redis/redis.module';
import { RetentionModule } from './retention/retention.module';
import { PeriodicJobsModule } from './scheduling/periodic-jobs.module';
import { UsersModule } from './users/users.module';
import { PostsModule } from './posts/posts.module';
import { PostingSchedulesModule } from './posting-schedules/posting-schedules.module';
import { PostMediaUsageModule } from './posts/post-media-usage.module';
import { PostMediaUsageStore } from './posts/post-media-usage.store';
import { PostQueueSlotsStore } from './posts/post-queue-slots.store';
import { PostSlotOccupancyModule } from './posts/post-slot-occupancy.module';
import { POST_EVENT_SCHEMAS } from './posts/post.events';
import { PostsWorkerModule } from './posts/posts-worker.module';
import { PlatformModule } from './platform/platform.module';
import { PlatformWorkerModule } from './platform/platform-worker.module';
import { PLATFORM_EVENT_SCHEMAS } from './platform/platform.events';
import { WebhooksModule } from './webhooks/webhooks.module';
import { WebhooksWorkerModule } from './webhooks/webhooks-worker.module';

/** The schema of each event's data, from the features that emit them (each declares its payloads). */
const EVENT_SCHEMAS: EventSchemas = {
  ...POST_EVENT_SCHEMAS,
  ...CHANNEL_EVENT_SCHEMAS,
  ...ANALYTICS_EVENT_SCHEMAS,
  ...MEDIA_EVENT_SCHEMAS,
  ...PLATFORM_EVENT_SCHEMAS,
};

/**
 * Answers one feature needs from another, bound here so that neither folder imports the other
 * (docs/adr/0030): the feature that asks owns the interface, the one that answers implements it.
 */
@Global()
@Module({
  imports: [
    MediaModule,
    PostMediaUsageModule,
    PostSlotOccupancyModule,
    OAuthModule,
    OAuthServerModule,
    ConnectLinksModule,
  ],
  providers: [
    // DELETE /media/{id}: media asks whether a scheduled or publishing post uses the item (posts' tables).
    { provide: MEDIA_USAGE, useExisting: PostMediaUsageStore },
    // GET /health/ready: health pings media's storage driver.
    { provide: STORAGE_PING, useExisting: MEDIA_STORAGE },
    // GET /health: health reports whether media's ffprobe/ffmpeg answer.
    { provide: VIDEO_TOOLS, useExisting: VideoToolkit },
    // POST /channels/connect/{provider}: channels starts an OAuth authorization (oauth creates channels).
    { provide: CHANNEL_OAUTH, useExisting: OAuthService },
    // GET /channels/{id}/slots: posting schedules ask which instants queued posts hold (posts' table).
    { provide: SLOT_OCCUPANCY, useExisting: PostQueueSlotsStore },
    // Every authenticated request: the key lookup asks which key an OAuth access token stands for.
    { provide: ACCESS_TOKENS, useExisting: OAuthServerService },
    // GET /oauth/{provider}/callback: oauth asks whether the connect link an authorization started from still connects.
    { provide: CONNECT_LINK_GATE, useExisting: ConnectLinksService },
  ],
  exports: [MEDIA_USAGE, STORAGE_PING, VIDEO_TOOLS, CHANNEL_OAUTH, SLOT_OCCUPANCY, ACCESS_TOKENS, CONNECT_LINK_GATE],
})
class PortBindingsModule {}

/** Controllers, services and queue registrations: loaded by every role. */
const FEATURE_MODULES: Array<Type<unknown> | DynamicModule> = [
  HealthModule,
  IdempotencyModule,
  ProvidersModule,
  EventsModule.forRoot(EVENT_SCHEMAS),
  ChannelsModule,
  OAuthModule,
  ConnectLinksModule,
  MediaModule,
  PostsModule,
  PostingSchedulesModule,
  WebhooksModule,
  AnalyticsModule,
  UsersModule,
  ConsoleModule,
  SandboxModule,
  McpModule,
  OAuthServerModule,
  PlatformModule,
];

/** Queue processors, relays and repeatable jobs: loaded only where the role runs workers. */
const WORKER_MODULES: Array<Type<unknown>> = [
  HealthWorkerModule,
  MediaWorkerModule,
  PostsWorkerModule,
  WebhooksWorkerModule,
  AnalyticsWorkerModule,
  IdempotencyWorkerModule,
  RetentionModule,
  OAuthWorkerModule,
  OAuthServerWorkerModule,
  PlatformWorkerModule,
];

/**
 * Wires the modules. `role` decides whether worker modules load (worker/all); main.ts serves HTTP
 * for api/all only. The one global guard is auth's RequestGuard: the API key, then its rate limit.
 */
@Module({})
export class AppModule {
  static forRole(role: AppRole): DynamicModule {
    return {
      module: AppModule,
      imports: [
        configModule(),
        DatabaseModule,
        RedisModule,
        QueueModule,
        PeriodicJobsModule,
        MetricsModule,
        CryptoModule,
        AuthModule,
        RateLimitModule,
        PortBindingsModule,
        ...FEATURE_MODULES,
        ...(runsWorkers(role) ? WORKER_MODULES : []),
      ],
      providers: [
        { provide: APP_GUARD, useClass: RequestGuard },
        { provide: APP_FILTER, useClass: AllExceptionsFilter },
        { provide: APP_PIPE, useFactory: createValidationPipe },
      ],
    };
  }
}
