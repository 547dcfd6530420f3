import { Logger } from '@nestjs/common';
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import FindMyWay from 'find-my-way';
import { AppError, sendError } from '../errors';

/**
 * Which methods each registered path answers, in a router of its own that Fastify fills as routes
 * are added (onRoute). A request Fastify routes to "not found" whose path another method does
 * answer gets 405 METHOD_NOT_ALLOWED with an `Allow` header (RFC 9110 section 15.5.6) instead of 404.
 * Only not-found requests look here, so a routed request pays one property read.
 */
export class RouteMethods {
  private readonly router = FindMyWay({ ignoreTrailingSlash: false, caseSensitive: true });
  private readonly methodsByUrl = new Map<string, Set<string>>();
  /** Every method some route answers. */
  private readonly methods = new Set<string>();

  add(methods: string | string[], url: string): void {
    for (const method of Array.isArray(methods) ? methods : [methods]) {
      let known = this.methodsByUrl.get(url);
      if (!known) this.methodsByUrl.set(url, (known = new Set()));
      if (known.has(method)) continue;
      known.add(method);
      this.methods.add(method);
      this.router.on(method as FindMyWay.HTTPMethod, url, () => undefined);
    }
  }

  /** The methods some route answers for this concrete path, sorted; empty when no route has the path. */
  allowed(path: string): string[] {
    const methods: string[] = [];
    for (const method of this.methods) {
      if (this.router.find(method as FindMyWay.HTTPMethod, path)) methods.push(method);
    }
    return methods.sort();
  }
}

/**
 * Registers the router on a Fastify instance before its routes are added, and the onRequest hook that
 * answers 405 for a not-found request whose path exists with other methods. The hook runs before the
 * body is read, so a method Fastify would otherwise refuse for its body (QUERY without a content type)
 * gets the same 405.
 */
export function answerMethodNotAllowed(fastify: FastifyInstance): RouteMethods {
  const routes = new RouteMethods();
  const logger = new Logger('HTTP');
  fastify.addHook('onRoute', (route) => routes.add(route.method, route.url ?? route.path));
  fastify.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
    if (!request.is404) return done();
    const path = request.url.split('?')[0] ?? '';
    const allowed = routes.allowed(path);
    if (!allowed.length) return done();
    const allow = allowed.join(', ');
    // Answered here: `done` is not called.
    sendError(
      reply,
      request,
      new AppError(
        'METHOD_NOT_ALLOWED',
        `Method ${request.method} is not allowed on ${path}; allowed: ${allow}`,
        undefined,
        {
          Allow: allow,
        },
      ),
      logger,
    );
  });
  return routes;
}
