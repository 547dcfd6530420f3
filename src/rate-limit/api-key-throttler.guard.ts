import { ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { ConfigType } from '@nestjs/config';
import { Reflector } from '@nestjs/core';
import {
  ThrottlerGuard,
  ThrottlerModuleOptions,
  ThrottlerRequest,
  ThrottlerStorage,
  getOptionsToken,
  getStorageToken,
} from '@nestjs/throttler';
import type { FastifyReply } from 'fastify';
import { AppError } from '../common/errors';
import { rateLimitConfig } from '../config';
import { RedisTokenBucketStorage } from './redis-token-bucket.storage';

/** The bucket of one API key: its id, its own limits (null: the configured defaults), its revocation marker. */
export interface KeyBucket {
  id: string;
  perMinute: number | null;
  burst: number | null;
  /** A Redis key whose existence means the key was revoked (checked in the same round trip). */
  revokedMarker: string;
}

/**
 * One token bucket per API key across all routes (docs/adr/0002, docs/guide.md section 4). Called by
 * the global RequestGuard (auth/) once the key is authenticated; public routes carry no key and are
 * not counted. Replaces the throttler's tracker, key, limits and headers; keeps its storage interface.
 */
@Injectable()
export class ApiKeyThrottlerGuard extends ThrottlerGuard {
  constructor(
    @Inject(getOptionsToken()) options: ThrottlerModuleOptions,
    @Inject(getStorageToken()) storage: ThrottlerStorage,
    reflector: Reflector,
    @Inject(rateLimitConfig.KEY) private readonly limits: ConfigType<typeof rateLimitConfig>,
  ) {
    super(options, storage, reflector);
  }

  /** Not used as a guard of its own (it would not know the key): the global RequestGuard calls takeToken. */
  protected override handleRequest(_request: ThrottlerRequest): Promise<boolean> {
    return Promise.reject(new Error('ApiKeyThrottlerGuard is called through takeToken() by RequestGuard'));
  }

  /**
   * What RequestGuard calls: a token from the key's bucket, straight away ('revoked' when its marker
   * exists; 429 when the bucket is empty). The throttler's own canActivate would first resolve
   * per-route limits, TTLs, trackers and skip flags through six metadata lookups per request; none
   * applies here (limits are per key, no route uses @Throttle or @SkipThrottle).
   */
  async takeToken(context: ExecutionContext, key: KeyBucket): Promise<'taken' | 'revoked'> {
    const taken = await this.take(key);
    if (taken === 'revoked') return 'revoked';
    void context.switchToHttp().getResponse<FastifyReply>().headers(taken.headers);
    return 'taken';
  }

  /**
   * A token from the key's bucket, for callers without an HTTP context of their own: the MCP server
   * (mcp/) takes one per tool call. 'revoked' when the key's marker exists; 429 (AppError) when the
   * bucket is empty; otherwise the X-RateLimit-* headers of the answer.
   */
  async take(key: KeyBucket): Promise<'revoked' | { headers: Record<string, number> }> {
    const perMinute = key.perMinute ?? this.limits.perMinute;
    const burst = key.burst ?? this.limits.burst;
    const record = await (this.storageService as RedisTokenBucketStorage).take(
      `key:${key.id}`,
      burst,
      perMinute,
      key.revokedMarker,
    );
    if (record.revoked) return 'revoked';
    const headers = {
      'X-RateLimit-Limit': perMinute,
      'X-RateLimit-Remaining': record.isBlocked ? 0 : record.remaining,
      'X-RateLimit-Reset': Math.ceil(record.resetAtMs / 1000),
      'X-RateLimit-Burst': burst,
    };
    if (record.isBlocked) {
      throw new AppError(
        'RATE_LIMIT_EXCEEDED',
        `Rate limit exceeded: ${perMinute} requests per minute, bursts up to ${burst}`,
        undefined,
        {
          ...headers,
          'Retry-After': Math.max(1, Math.ceil(record.retryAfterMs / 1000)),
        },
      );
    }
    return { headers };
  }

  protected override async shouldSkip(_context: ExecutionContext): Promise<boolean> {
    return false;
  }
}
