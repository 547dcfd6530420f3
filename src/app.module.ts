import { DynamicModule, Module } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { APP_FILTER, APP_PIPE } from '@nestjs/core';
import { AppRole } from './app-role';
import { AuthModule } from './auth/auth.module';
import { ChannelsModule } from './channels/channels.module';
import { CryptoModule } from './common/crypto/crypto.module';
import { AllExceptionsFilter } from './common/errors';
import { createValidationPipe } from './common/validation.pipe';
import { allConfigs } from './config';
import { DatabaseModule } from './database/database.module';
import { EventsModule } from './events/events.module';
import { HealthModule } from './health/health.module';
import { ProvidersModule } from './providers/providers.module';
import { QueueModule } from './queue/queue.module';
import { RateLimitModule } from './rate-limit/rate-limit.module';
import { RedisModule } from './redis/redis.module';

/**
 * Wires the feature modules. `role` decides whether queue processors are registered
 * (worker/all) and whether controllers are served (api/all; main.ts skips HTTP for worker).
 * AuthModule comes before RateLimitModule: its guard must run first.
 */
@Module({})
export class AppModule {
  static forRole(role: AppRole): DynamicModule {
    void role;
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot({ isGlobal: true, cache: true, load: allConfigs }),
        DatabaseModule,
        RedisModule,
        QueueModule,
        AuthModule,
        RateLimitModule,
        HealthModule,
        CryptoModule,
        ProvidersModule,
        EventsModule,
        ChannelsModule,
      ],
      providers: [
        { provide: APP_FILTER, useClass: AllExceptionsFilter },
        { provide: APP_PIPE, useFactory: createValidationPipe },
      ],
    };
  }
}
