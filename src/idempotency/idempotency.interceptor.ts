import { CallHandler, ExecutionContext, Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { from, lastValueFrom, Observable } from 'rxjs';
import { IdempotentRouteHandler } from '../common/decorators/idempotent.decorator';
import { IDEMPOTENCY_KEY_HEADER, IDEMPOTENT_REPLAYED_HEADER } from '../common/http/idempotency-key';
import { IdempotencyService } from './idempotency.service';

/** True for the requests the key applies to: authenticated `POST`s with a JSON (not multipart) body. */
export function takesIdempotencyKey(method: string, contentType: string | undefined): boolean {
  return method === 'POST' && !(contentType ?? '').toLowerCase().startsWith('multipart/');
}

/**
 * The handler of routes marked @Idempotent() (common/decorators/idempotent.decorator.ts): a `POST`
 * carrying `Idempotency-Key` runs through IdempotencyService, which replays a stored outcome or runs
 * the handler in one transaction with the stored outcome.
 */
@Injectable()
export class IdempotencyInterceptor implements IdempotentRouteHandler {
  constructor(private readonly idempotency: IdempotencyService) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'http') return next.handle();
    const req = context.switchToHttp().getRequest<FastifyRequest>();
    const reply = context.switchToHttp().getResponse<FastifyReply>();
    const header = req.headers[IDEMPOTENCY_KEY_HEADER];
    const key = Array.isArray(header) ? header[0] : header;
    if (key === undefined || !req.auth || !takesIdempotencyKey(req.method, req.headers['content-type'])) {
      return next.handle();
    }
    const run = async (): Promise<unknown> => {
      const outcome = await this.idempotency.execute(
        {
          apiKeyId: req.auth!.apiKeyId,
          key,
          method: req.method,
          path: req.url,
          body: req.body,
          ...(req.auth!.keyWorkspaceId ? { actingWorkspaceId: req.auth!.workspaceId } : {}),
        },
        async () => {
          const body: unknown = await lastValueFrom(next.handle(), { defaultValue: undefined });
          return { status: reply.statusCode, body };
        },
      );
      if (outcome.replayed) {
        void reply.status(outcome.status).header(IDEMPOTENT_REPLAYED_HEADER, 'true');
      }
      return outcome.body === null && outcome.status === 204 ? undefined : outcome.body;
    };
    return from(run());
  }
}
