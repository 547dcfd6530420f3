import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { ApiKeyThrottlerGuard } from '../rate-limit/api-key-throttler.guard';
import { rateLimitBucketOf, revokedKeyMarker } from './api-key.format';
import { ApiKeyGuard } from './api-key.guard';
import { revokedCredentialError } from './auth.service';

/**
 * The one global guard (registered by the composition root, app.module.ts): authenticates the API
 * key (ApiKeyGuard sets `req.auth`, or throws 401), then takes a token from that key's bucket
 * (rate-limit/, 429 when empty). Public routes pass both. The key's path runs one way: auth, then
 * the rate limiter, which knows nothing of keys beyond the bucket it is given.
 */
@Injectable()
export class RequestGuard implements CanActivate {
  constructor(
    private readonly apiKey: ApiKeyGuard,
    private readonly throttle: ApiKeyThrottlerGuard,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (!(await this.apiKey.canActivate(context))) return false;
    const auth = context.switchToHttp().getRequest<FastifyRequest>().auth;
    if (!auth) return true;
    const taken = await this.throttle.takeToken(context, {
      id: rateLimitBucketOf(auth),
      perMinute: auth.rateLimitPerMinute,
      burst: auth.rateLimitBurst,
      revokedMarker: revokedKeyMarker(auth.apiKeyId),
    });
    // Revoked on another instance moments ago, and still in this one's cache: refused all the same.
    if (taken === 'revoked') throw revokedCredentialError(auth.credential);
    return true;
  }
}
