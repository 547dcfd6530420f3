import { ArgumentsHost, Catch, ExceptionFilter, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { toErrorResponse } from '../common/errors/all-exceptions.filter';
import { ConsoleCsrfService } from './console-csrf.service';
import { ConsoleForbidden, ConsoleSignInRequired } from './console.guard';
import { CONSOLE_PATH, isSignInReturn, redirect, sendPage } from './console-http';
import { errorPage } from './views/pages';

const TITLES: Record<number, string> = {
  400: 'Please check what you entered',
  401: 'Not allowed',
  403: 'Not allowed',
  404: 'Not found',
  409: 'That cannot be done now',
  429: 'Too many attempts',
  500: 'Something went wrong',
  503: 'Temporarily unavailable',
};

/**
 * Errors on console pages become friendly HTML pages (the API keeps its JSON shape): sign-in
 * redirects, 403 for CSRF and role refusals, the service's message for domain errors, and
 * nothing but the request id for a 500.
 */
@Catch()
export class ConsoleExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('Console');

  constructor(private readonly csrf: ConsoleCsrfService) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const req = host.switchToHttp().getRequest<FastifyRequest>();
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    if (reply.sent) return;
    if (exception instanceof ConsoleSignInRequired) {
      // An agent's authorization comes back to its consent page after the sign-in.
      const next = req.method === 'GET' && isSignInReturn(req.url) ? `?next=${encodeURIComponent(req.url)}` : '';
      redirect(reply, `${CONSOLE_PATH}/login${next}`);
      return;
    }
    let status: number;
    let message: string;
    if (exception instanceof ConsoleForbidden) {
      status = 403;
      message = exception.message;
    } else {
      const mapped = toErrorResponse(exception);
      status = mapped.status;
      message = mapped.body.message;
      if (mapped.headers) for (const [k, v] of Object.entries(mapped.headers)) void reply.header(k, String(v));
      if (status >= 500) {
        const err = exception instanceof Error ? exception : new Error(String(exception));
        this.logger.error({
          msg: 'Console error',
          requestId: req.id,
          url: req.url.split('?')[0],
          err: err.message,
          stack: err.stack,
        });
        message = `Please try again. If it keeps happening, give this reference to your administrator: ${req.id}`;
      }
    }
    const actor = req.consoleActor ?? null;
    const csrf = actor ? this.csrf.tokenFor(req, reply) : '';
    sendPage(reply, errorPage({ actor, csrf }, TITLES[status] ?? 'Something went wrong', message), status);
  }
}
