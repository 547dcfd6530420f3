import { applyDecorators, SetMetadata, UseInterceptors } from '@nestjs/common';
import { IdempotencyInterceptor } from './idempotency.interceptor';

export const IDEMPOTENT = 'sps:idempotent';

/**
 * Puts a `POST` route behind IdempotencyInterceptor (`Idempotency-Key`, docs/adr/0012). Every
 * `POST` that takes an API key carries it; start-up fails naming any that does not
 * (IdempotentRoutesCheck). Other routes stay out of the interceptor chain: a global interceptor
 * would run every request, reads included, through Nest's Observable pipeline.
 * The controller's module imports IdempotencyModule.
 */
export const Idempotent = (): MethodDecorator =>
  applyDecorators(SetMetadata(IDEMPOTENT, true), UseInterceptors(IdempotencyInterceptor));
