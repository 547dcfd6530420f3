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
import type { FastifyReply, FastifyRequest } from 'fastify';
import { revokedKeyMarker } from '../auth/api-key.format';
import { AppError } from '../common/errors';
import { rateLimitConfig } from '../config';
import { RedisTokenBucketStorage } from './redis-token-bucket.storage';

/**
 * One token bucket per API key across all routes (docs/adr/0002, docs/guide.md section 4). Runs
 * inside RequestGuard after ApiKeyGuard; public routes carry no key and are not counted. Replaces
 * the throttler's tracker, key, limits and headers; keeps its storage interface.
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

  protected override handleRequest({ context }: ThrottlerRequest): Promise<boolean> {
    return this.takeToken(context);
  }

  /**
   * What RequestGuard calls: the bucket of the request's API key, straight away. The throttler's own
   * canActivate would first resolve per-route limits, TTLs, trackers and skip flags through six
   * metadata lookups per request; none applies here (limits are per key, no route uses @Throttle or
   * @SkipThrottle).
   */
  async takeToken(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<FastifyRequest>();
    const res = context.switchToHttp().getResponse<FastifyReply>();
    const auth = req.auth;
    if (!auth) return true;
    const perMinute = auth.rateLimitPerMinute ?? this.limits.perMinute;
    const burst = auth.rateLimitBurst ?? this.limits.burst;
    const record = await (this.storageService as RedisTokenBucketStorage).take(
      `key:${auth.apiKeyId}`,
      burst,
      perMinute,
      revokedKeyMarker(auth.apiKeyId),
    );
    // Revoked on another instance moments ago, and still in this one's cache: refused all the same.
    if (record.revoked) throw new AppError('UNAUTHORIZED', 'Invalid API key');
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
    void res.headers(headers);
    return true;
  }

  protected override async shouldSkip(_context: ExecutionContext): Promise<boolean> {
    return false;
  }
}
