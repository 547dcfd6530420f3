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
  /** Per controller class, per handler: one handler may be inherited by classes marked differently. */
  private readonly routes = new WeakMap<object, Map<object, RouteAuth>>();

  constructor(
    private readonly reflector: Reflector,
    private readonly auth: AuthService,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const { isPublic, scope } = this.routeOf(context);
    if (isPublic) return true;
    const req = context.switchToHttp().getRequest<FastifyRequest>();
    const auth = await this.auth.authenticateRequest(req.headers, req.ip);
    req.auth = auth;
    // ScopedRoutesCheck makes every authenticated route declare one at start-up.
    if (scope) assertScope(auth, scope);
    return true;
  }

  /** A route's @Public() and @RequiredScope(), read from its metadata once (decorators do not change). */
  private routeOf(context: ExecutionContext): RouteAuth {
    const handler = context.getHandler();
    const cls = context.getClass();
    let routes = this.routes.get(cls);
    if (!routes) {
      routes = new Map();
      this.routes.set(cls, routes);
    }
    let route = routes.get(handler);
    if (!route) {
      route = {
        isPublic: this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, [handler, cls]) === true,
        scope: this.reflector.get<Scope | undefined>(REQUIRED_SCOPE, handler),
      };
      routes.set(handler, route);
    }
    return route;
  }
}

interface RouteAuth {
  isPublic: boolean;
  scope: Scope | undefined;
}
