import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { IS_PUBLIC } from '../common/decorators/public.decorator';
import { AuthService } from './auth.service';

/** Global guard: every route needs a valid API key (`X-API-Key` or `Authorization: Bearer`) unless marked @Public(). */
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
    req.auth = await this.auth.authenticateRequest(req.headers, req.ip);
    return true;
  }
}
