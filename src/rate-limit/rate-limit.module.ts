import { Module } from '@nestjs/common';
import { ThrottlerModule } from '@nestjs/throttler';
import Redis from 'ioredis';
import { REDIS } from '../redis/redis.module';
import { ApiKeyThrottlerGuard } from './api-key-throttler.guard';
import { RedisTokenBucketStorage } from './redis-token-bucket.storage';

/**
 * The per-key token bucket (Redis Lua) behind the throttler's storage interface. The global guard that
 * calls it after authenticating the key is auth's RequestGuard; this module imports no feature.
 */
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
  providers: [ApiKeyThrottlerGuard],
  exports: [ApiKeyThrottlerGuard],
})
export class RateLimitModule {}
