import { Inject, Injectable, Logger } from '@nestjs/common';
import { ThrottlerStorage } from '@nestjs/throttler';
import Redis from 'ioredis';
import { REDIS } from '../redis/redis.module';
import { BucketRedis, TOKEN_BUCKET_LUA } from './token-bucket.lua';

/** What ThrottlerStorage.increment returns (its public type, not an import from the package's dist). */
type ThrottlerStorageRecord = Awaited<ReturnType<ThrottlerStorage['increment']>>;

export interface TokenBucketRecord extends ThrottlerStorageRecord {
  remaining: number;
  resetAtMs: number;
  retryAfterMs: number;
  /** True when Redis could not be asked and the request was let through. */
  failedOpen: boolean;
  /** True when the key's revocation marker exists: the request must be refused as unauthenticated. */
  revoked: boolean;
}

/**
 * @nestjs/throttler storage backed by one atomic Redis Lua token bucket.
 * The throttler's (limit, ttl) pair is read as (capacity, time to refill an empty bucket),
 * so the refill rate is limit/ttl. Fails open, and logs it, when Redis does not answer in time.
 */
@Injectable()
export class RedisTokenBucketStorage implements ThrottlerStorage {
  private readonly logger = new Logger('RateLimit');
  private readonly redis: BucketRedis;
  private lastFailureLog = 0;

  constructor(@Inject(REDIS) redis: Redis) {
    redis.defineCommand('takeToken', { numberOfKeys: 2, lua: TOKEN_BUCKET_LUA });
    this.redis = redis as BucketRedis;
  }

  async increment(key: string, ttl: number, limit: number): Promise<TokenBucketRecord> {
    const perMinute = (limit * 60_000) / ttl;
    return this.take(key, limit, perMinute);
  }

  /**
   * Takes a token from bucket `key`. With `revokedMarker`, the same script first checks that key and
   * answers `revoked` when it exists, so the check costs no extra round trip.
   */
  async take(key: string, capacity: number, perMinute: number, revokedMarker = ''): Promise<TokenBucketRecord> {
    try {
      const [allowed, remaining, resetAtMs, retryAfterMs] = await this.redis.takeToken(
        `rl:${key}`,
        revokedMarker,
        capacity,
        perMinute,
      );
      const now = Date.now();
      return {
        totalHits: capacity - remaining,
        timeToExpire: Math.max(0, Math.ceil((resetAtMs - now) / 1000)),
        isBlocked: allowed !== 1,
        timeToBlockExpire: Math.ceil(retryAfterMs / 1000),
        remaining,
        resetAtMs,
        retryAfterMs,
        failedOpen: false,
        revoked: allowed === -1,
      };
    } catch (err) {
      const now = Date.now();
      if (now - this.lastFailureLog > 10_000) {
        this.lastFailureLog = now;
        this.logger.warn(`Rate limiter failing open: ${(err as Error).message}`);
      }
      return {
        totalHits: 0,
        timeToExpire: 0,
        isBlocked: false,
        timeToBlockExpire: 0,
        remaining: capacity,
        resetAtMs: now,
        retryAfterMs: 0,
        failedOpen: true,
        revoked: false,
      };
    }
  }
}
