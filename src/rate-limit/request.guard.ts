import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { ApiKeyGuard } from '../auth/api-key.guard';
import { ApiKeyThrottlerGuard } from './api-key-throttler.guard';

/**
 * The one global guard: authenticates the API key (ApiKeyGuard sets `req.auth`, or throws 401),
 * then takes a token from that key's bucket (429 when empty). Public routes pass both.
 */
@Injectable()
export class RequestGuard implements CanActivate {
  constructor(
    private readonly apiKey: ApiKeyGuard,
    private readonly throttle: ApiKeyThrottlerGuard,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    return (await this.apiKey.canActivate(context)) && (await this.throttle.takeToken(context));
  }
}
