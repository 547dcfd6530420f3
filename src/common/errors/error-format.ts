import type { FastifyRequest } from 'fastify';
import type { ErrorBody } from './app-error';

/**
 * The route config key (`@RouteConfig({ [ERROR_FORMAT]: format })`, from @nestjs/platform-fastify) of a
 * route whose errors an outside specification shapes rather than the API (the OAuth endpoints:
 * `{error, error_description}`). The one filter still decides status and message, for everything
 * thrown on the route's way: body parsing, size limit, content type, validation of the raw body, an
 * unexpected failure; the format only rewrites the answer. Routing is Fastify's (the route matched
 * before the body was read), so no URL is compared here.
 */
export const ERROR_FORMAT = 'errorFormat';

/** The answer a route's format makes of the API's error. */
export interface FormattedError {
  status: number;
  body: object;
  /** Set on the reply, replacing what was there (e.g. `Cache-Control: no-store`). */
  headers?: Record<string, string>;
}

export type ErrorFormat = (error: { status: number; body: ErrorBody }) => FormattedError;

/** The error format of the route a request matched, if it declares one. */
export function errorFormatOf(request: FastifyRequest): ErrorFormat | undefined {
  const config = request.routeOptions?.config as unknown as Record<string, unknown> | undefined;
  const format = config?.[ERROR_FORMAT];
  return typeof format === 'function' ? (format as ErrorFormat) : undefined;
}
