import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { IS_PUBLIC } from '../common/decorators/public.decorator';
import { AuthService } from './auth.service';
import { REQUIRED_SCOPE } from './scope.decorator';
import { assertScope, type Scope } from './scopes.format';

/**
 * Global guard: every route needs a valid API key (`X-API-Key` or `Authorization: Bearer`) unless marked
 * @Public(), and the scope it declares (@RequiredScope(); 403 FORBIDDEN naming it). The scopes come with
 * the key lookup (cached like the rest of it), so the check adds no query and no Redis round trip.
 */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly auth: AuthService,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const isPublic = this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, [context.getHandler(), context.getClass()]);
    if (isPublic) return true;
    const req = context.switchToHttp().getRequest<FastifyRequest>();
    const auth = await this.auth.authenticateRequest(req.headers, req.ip);
    req.auth = auth;
    const scope = this.reflector.get<Scope | undefined>(REQUIRED_SCOPE, context.getHandler());
    // ScopedRoutesCheck makes every authenticated route declare one at start-up.
    if (scope) assertScope(auth, scope);
    return true;
  }
}
