import {
  applyDecorators,
  CallHandler,
  ExecutionContext,
  Injectable,
  NestInterceptor,
  SetMetadata,
  UseInterceptors,
} from '@nestjs/common';
import type { Observable } from 'rxjs';

export const IDEMPOTENT = 'sps:idempotent';

/**
 * What runs an idempotent route (`Idempotency-Key`, docs/adr/0012): the idempotency module provides it
 * (IdempotencyInterceptor, global), so a controller marks its routes without importing that module.
 */
export abstract class IdempotentRouteHandler implements NestInterceptor {
  abstract intercept(context: ExecutionContext, next: CallHandler): Observable<unknown>;
}

/** The interceptor @Idempotent() names: Nest builds it in the controller's module, and it hands over. */
@Injectable()
export class IdempotentRouteInterceptor implements NestInterceptor {
  constructor(private readonly handler: IdempotentRouteHandler) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    return this.handler.intercept(context, next);
  }
}

/**
 * Puts a `POST` route behind the idempotency interceptor (`Idempotency-Key`, docs/adr/0012). Every
 * `POST` that takes an API key carries it; start-up fails naming any that does not
 * (IdempotentRoutesCheck). Other routes stay out of the interceptor chain: a global interceptor
 * would run every request, reads included, through Nest's Observable pipeline.
 */
export const Idempotent = (): MethodDecorator =>
  applyDecorators(SetMetadata(IDEMPOTENT, true), UseInterceptors(IdempotentRouteInterceptor));
