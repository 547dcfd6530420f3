import { DynamicModule, Module, Type } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { APP_FILTER, APP_PIPE } from '@nestjs/core';
import { AnalyticsWorkerModule } from './analytics/analytics-worker.module';
import { AnalyticsModule } from './analytics/analytics.module';
import { AppRole, runsWorkers } from './app-role';
import { AuthModule } from './auth/auth.module';
import { ChannelsModule } from './channels/channels.module';
import { CryptoModule } from './common/crypto/crypto.module';
import { AllExceptionsFilter } from './common/errors';
import { createValidationPipe } from './common/validation.pipe';
import { allConfigs } from './config';
import { DatabaseModule } from './database/database.module';
import { EventsModule } from './events/events.module';
import { HealthModule } from './health/health.module';
import { MediaWorkerModule } from './media/media-worker.module';
import { MediaModule } from './media/media.module';
import { ProvidersModule } from './providers/providers.module';
import { QueueModule } from './queue/queue.module';
import { RateLimitModule } from './rate-limit/rate-limit.module';
import { RedisModule } from './redis/redis.module';
import { PostsModule } from './posts/posts.module';
import { PostsWorkerModule } from './posts/posts-worker.module';
import { WebhooksModule } from './webhooks/webhooks.module';
import { WebhooksWorkerModule } from './webhooks/webhooks-worker.module';

/** Controllers, services and queue registrations: loaded by every role. */
const FEATURE_MODULES: Array<Type<unknown>> = [
  HealthModule,
  ProvidersModule,
  EventsModule,
  ChannelsModule,
  MediaModule,
  PostsModule,
  WebhooksModule,
  AnalyticsModule,
];

/** Queue processors, relays and repeatable jobs: loaded only where the role runs workers. */
const WORKER_MODULES: Array<Type<unknown>> = [
  MediaWorkerModule,
  PostsWorkerModule,
  WebhooksWorkerModule,
  AnalyticsWorkerModule,
];

/**
 * Wires the modules. `role` decides whether worker modules load (worker/all); main.ts serves HTTP
 * for api/all only. AuthModule comes before RateLimitModule: its guard must run first.
 */
@Module({})
export class AppModule {
  static forRole(role: AppRole): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot({ isGlobal: true, cache: true, load: allConfigs }),
        DatabaseModule,
        RedisModule,
        QueueModule,
        CryptoModule,
        AuthModule,
        RateLimitModule,
        ...FEATURE_MODULES,
        ...(runsWorkers(role) ? WORKER_MODULES : []),
      ],
      providers: [
        { provide: APP_FILTER, useClass: AllExceptionsFilter },
        { provide: APP_PIPE, useFactory: createValidationPipe },
      ],
    };
  }
}
