import { Global, Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { IdempotentRouteHandler } from '../common/decorators/idempotent.decorator';
import { IdempotencyInterceptor } from './idempotency.interceptor';
import { IdempotencyKeysStore } from './idempotency-keys.store';
import { IdempotencyService } from './idempotency.service';
import { IdempotentRoutesCheck } from './idempotent-routes.check';

/**
 * `Idempotency-Key` on POST: owns the idempotency_keys table. Global: controllers mark their POST
 * routes `@Idempotent()` (common/decorators) without importing it, and this module answers them
 * (IdempotentRouteHandler); IdempotentRoutesCheck fails start-up on a route left out.
 */
@Global()
@Module({
  imports: [DiscoveryModule],
  providers: [
    IdempotencyService,
    IdempotencyKeysStore,
    IdempotencyInterceptor,
    IdempotentRoutesCheck,
    { provide: IdempotentRouteHandler, useExisting: IdempotencyInterceptor },
  ],
  exports: [IdempotencyService, IdempotentRouteHandler],
})
export class IdempotencyModule {}
