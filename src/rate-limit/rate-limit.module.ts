import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { ThrottlerModule } from '@nestjs/throttler';
import Redis from 'ioredis';
import { REDIS } from '../redis/redis.module';
import { AuthModule } from '../auth/auth.module';
import { ApiKeyThrottlerGuard } from './api-key-throttler.guard';
import { RequestGuard } from './request.guard';
import { RedisTokenBucketStorage } from './redis-token-bucket.storage';

/**
 * Registers the one global guard (RequestGuard): the API key first, then the key's token bucket.
 * The order is in code, not in module import order.
 */
@Module({
  imports: [
    AuthModule,
    ThrottlerModule.forRootAsync({
      inject: [REDIS],
      useFactory: (redis: Redis) => ({
        // Per-key limits are resolved by ApiKeyThrottlerGuard; this entry only satisfies the module.
        throttlers: [{ name: 'default', limit: 200, ttl: 120_000 }],
        storage: new RedisTokenBucketStorage(redis),
      }),
    }),
  ],
  providers: [ApiKeyThrottlerGuard, { provide: APP_GUARD, useClass: RequestGuard }],
})
export class RateLimitModule {}
