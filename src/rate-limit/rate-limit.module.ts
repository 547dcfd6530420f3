import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { ThrottlerModule } from '@nestjs/throttler';
import Redis from 'ioredis';
import { REDIS } from '../redis/redis.module';
import { ApiKeyThrottlerGuard } from './api-key-throttler.guard';
import { RedisTokenBucketStorage } from './redis-token-bucket.storage';

/** Registers its guard as APP_GUARD: import it after AuthModule so the key is known first. */
@Module({
  imports: [
    ThrottlerModule.forRootAsync({
      inject: [REDIS],
      useFactory: (redis: Redis) => ({
        // Per-key limits are resolved by ApiKeyThrottlerGuard; this entry only satisfies the module.
        throttlers: [{ name: 'default', limit: 200, ttl: 120_000 }],
        storage: new RedisTokenBucketStorage(redis),
      }),
    }),
  ],
  providers: [{ provide: APP_GUARD, useClass: ApiKeyThrottlerGuard }],
})
export class RateLimitModule {}
