import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import { ThrottlerException } from '@nestjs/throttler';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError, ErrorBody, ErrorCode, HTTP_STATUS_BY_CODE } from './app-error';
import { errorFormatOf } from './error-format';
import { dependencyUnavailability } from './unavailable';

export type { ErrorBody };

const CODE_BY_STATUS: Record<number, ErrorCode> = {
  400: 'VALIDATION_ERROR',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  414: 'VALIDATION_ERROR',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  416: 'RANGE_NOT_SATISFIABLE',
  422: 'IDEMPOTENCY_KEY_REUSED',
  429: 'RATE_LIMIT_EXCEEDED',
  503: 'SERVICE_UNAVAILABLE',
};

/** Messages for Fastify's routing errors, which reach us through its `frameworkErrors` hook. */
const FASTIFY_MESSAGES: Record<string, string> = {
  FST_ERR_BAD_URL: 'Malformed URL: the path is not valid percent-encoding',
  FST_ERR_MAX_PARAM_LENGTH: 'A path parameter is too long',
  FST_ERR_ASYNC_CONSTRAINT: 'Route not found',
};

interface FastifyError extends Error {
  code: string;
  statusCode?: number;
}

/** Retry-After of a 503 answered because the database is unavailable. */
const UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

/** While the database is unavailable, one warning per this period rather than one per request. */
const UNAVAILABLE_LOG_EVERY_MS = 10_000;
let lastUnavailableLog = 0;

/** SQLSTATE foreign_key_violation. */
const FOREIGN_KEY_VIOLATION = '23503';

/** The SQLSTATE of a Postgres error, as pg raises it or as TypeORM wraps it. */
function sqlState(e: unknown): string | undefined {
  const err = e as { code?: unknown; driverError?: { code?: unknown } } | null;
  const code = err?.driverError?.code ?? err?.code;
  return typeof code === 'string' ? code : undefined;
}

function isFastifyError(e: unknown): e is FastifyError {
  return e instanceof Error && e.name === 'FastifyError' && typeof (e as FastifyError).code === 'string';
}

/**
 * Maps anything thrown to the wire error shape. Fastify's own failures (body parsing, limits,
 * content types) reach us as HttpExceptions carrying Fastify's status and message; its routing
 * failures (bad percent-encoding, overlong parameters) as Fastify errors.
 */
export function toErrorResponse(exception: unknown): {
  status: number;
  body: ErrorBody;
  headers?: Record<string, string | number>;
} {
  if (exception instanceof AppError) {
    const body: ErrorBody = { error: exception.code, message: exception.message };
    if (exception.details?.length) body.details = exception.details;
    return { status: HTTP_STATUS_BY_CODE[exception.code], body, headers: exception.headers };
  }
  if (exception instanceof ThrottlerException) {
    return { status: 429, body: { error: 'RATE_LIMIT_EXCEEDED', message: 'Rate limit exceeded' } };
  }
  if (isFastifyError(exception) && FASTIFY_MESSAGES[exception.code]) {
    const status = exception.code === 'FST_ERR_ASYNC_CONSTRAINT' ? 404 : (exception.statusCode ?? 400);
    const code = CODE_BY_STATUS[status] ?? 'VALIDATION_ERROR';
    return { status, body: { error: code, message: FASTIFY_MESSAGES[exception.code] } };
  }
  const unavailable = dependencyUnavailability(exception);
  if (unavailable) {
    // The database refused, dropped or did not answer within its bounds (DATABASE_*_TIMEOUT_MS): the
    // request may well succeed later.
    const message =
      unavailable === 'timeout'
        ? 'The database did not answer in time; retry shortly'
        : 'The database cannot be reached; retry shortly';
    return {
      status: 503,
      body: { error: 'SERVICE_UNAVAILABLE', message },
      headers: { 'Retry-After': UNAVAILABLE_RETRY_AFTER_SECONDS },
    };
  }
  if (sqlState(exception) === FOREIGN_KEY_VIOLATION) {
    // A row the request refers to was deleted by a concurrent request between our read and our write
    // (for example a webhook deleted while a test delivery is being queued): the client's view is stale.
    return {
      status: 409,
      body: { error: 'CONFLICT', message: 'A resource this request refers to was deleted meanwhile; read it again' },
    };
  }
  if (exception instanceof HttpException) {
    const status = exception.getStatus();
    const code = CODE_BY_STATUS[status];
    if (!code) return internal();
    const response = exception.getResponse();
    let message = exception.message;
    if (typeof response === 'object' && response !== null && 'message' in response) {
      const m = response.message;
      message = Array.isArray(m) ? m.join('; ') : String(m);
    }
    if (status === 404 && /^Cannot (GET|POST|PUT|DELETE|PATCH|HEAD|OPTIONS) /.test(message)) {
      message = `Route ${message.slice('Cannot '.length)} not found`;
    }
    if (status === 400 && message.startsWith('Body is not valid JSON')) message = 'Malformed JSON in request body';
    if (status === 400 && message.startsWith('Body cannot be empty')) message = 'Request body must not be empty';
    if (status === 413) message = 'Request body is too large';
    if (status === 415) message = 'Unsupported request content type';
    return { status, body: { error: code, message } };
  }
  return internal();
}

function internal(): { status: number; body: ErrorBody } {
  return { status: 500, body: { error: 'INTERNAL_ERROR', message: 'Internal server error' } };
}

/** The one global filter (registered as APP_FILTER). */
@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  private readonly logger = new Logger('Errors');

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const reply = http.getResponse<FastifyReply>();
    const request = http.getRequest<FastifyRequest>();
    sendError(reply, request, exception, this.logger);
  }
}

export function sendError(reply: FastifyReply, request: FastifyRequest, exception: unknown, logger: Logger): void {
  const { status, body, headers } = toErrorResponse(exception);
  if (status >= 500 && body.error === 'INTERNAL_ERROR') {
    const err = exception instanceof Error ? exception : new Error(String(exception));
    logger.error({
      msg: 'Unhandled error',
      requestId: request.id,
      method: request.method,
      url: request.routeOptions?.url ?? request.url.split('?')[0],
      err: err.message,
      stack: err.stack,
    });
  }
  if (
    status === 503 &&
    body.error === 'SERVICE_UNAVAILABLE' &&
    Date.now() - lastUnavailableLog >= UNAVAILABLE_LOG_EVERY_MS
  ) {
    const reason = dependencyUnavailability(exception);
    if (reason) {
      lastUnavailableLog = Date.now();
      logger.warn({
        msg: 'Database unavailable: answering 503',
        requestId: request.id,
        reason,
        err: exception instanceof Error ? exception.message : String(exception),
      });
    }
  }
  // A header the caller already set wins (the MCP endpoint's own WWW-Authenticate challenge).
  if (headers) for (const [k, v] of Object.entries(headers)) if (!reply.hasHeader(k)) void reply.header(k, String(v));
  if (reply.sent) return;
  // A route answering another specification's error shape (the OAuth endpoints) rewrites the answer.
  const format = errorFormatOf(request);
  const answer = format ? format({ status, body }) : { status, body, headers: undefined };
  if (answer.headers) void reply.headers(answer.headers);
  void reply.status(answer.status).header('content-type', 'application/json; charset=utf-8').send(answer.body);
}
