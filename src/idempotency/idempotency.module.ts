import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { IdempotencyInterceptor } from './idempotency.interceptor';
import { IdempotencyService } from './idempotency.service';
import { IdempotentRoutesCheck } from './idempotent-routes.check';

/**
 * `Idempotency-Key` on POST: owns the idempotency_keys table. Controllers with POST routes import it
 * and mark those routes `@Idempotent()`; IdempotentRoutesCheck fails start-up on one left out.
 */
@Module({
  imports: [DiscoveryModule],
  providers: [IdempotencyService, IdempotencyInterceptor, IdempotentRoutesCheck],
  exports: [IdempotencyService, IdempotencyInterceptor],
})
export class IdempotencyModule {}
