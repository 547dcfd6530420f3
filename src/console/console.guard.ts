import { CanActivate, ExecutionContext, Injectable, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { SessionsService } from '../users/sessions.service';
import { ConsoleCsrfService } from './console-csrf.service';
import { SESSION_COOKIE, field, readCookie } from './console-http';

const CONSOLE_ACCESS = 'consoleAccess';
type Access = 'anyone' | 'owner';
/** A console page open without signing in (sign-in, setup, invitation, assets). */
export const ConsoleAnyone = () => SetMetadata(CONSOLE_ACCESS, 'anyone' satisfies Access);
/** A console page for workspace owners only. */
export const ConsoleOwnersOnly = () => SetMetadata(CONSOLE_ACCESS, 'owner' satisfies Access);

/** No valid session: the console filter sends the browser to the sign-in page. */
export class ConsoleSignInRequired extends Error {}

/** Refused: CSRF token missing or wrong, or a member on an owners' page (403). */
export class ConsoleForbidden extends Error {}

/**
 * The console's only way in: the session cookie. An API key (`X-API-Key`, `Authorization: Bearer`) is never looked at here
 * (and the API's guard never looks at the cookie). Every POST must carry its form's CSRF token.
 */
@Injectable()
export class ConsoleGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly sessions: SessionsService,
    private readonly csrf: ConsoleCsrfService,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const access = this.reflector.getAllAndOverride<Access | undefined>(CONSOLE_ACCESS, [
      context.getHandler(),
      context.getClass(),
    ]);
    const req = context.switchToHttp().getRequest<FastifyRequest>();
    req.consoleActor = await this.sessions.resolve(readCookie(req, SESSION_COOKIE));
    if (access !== 'anyone' && !req.consoleActor) throw new ConsoleSignInRequired();
    // A form carries the token as `_csrf`; the composer's script (uploads, counts) in X-CSRF-Token.
    const header = req.headers['x-csrf-token'];
    const token = field(req, '_csrf') || (typeof header === 'string' ? header : '');
    if (req.method === 'POST' && !this.csrf.verify(req, token)) {
      throw new ConsoleForbidden(
        'This form has expired or did not come from this console. Reload the page and try again.',
      );
    }
    if (access === 'owner' && req.consoleActor?.role !== 'owner') {
      throw new ConsoleForbidden('Only owners of this workspace can open this page.');
    }
    return true;
  }
}
