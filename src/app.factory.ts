import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { SwaggerModule } from '@nestjs/swagger';
import { parse as parseQueryString } from 'node:querystring';
import type {
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  HookHandlerDoneFunction as HookDone,
  RequestPayload,
} from 'fastify';
import { AppRole } from './app-role';
import { AppModule } from './app.module';
import { AuthService } from './auth/auth.service';
import { AppError, sendError } from './common/errors';
import { createLogger } from './common/logger';
import { AppConfig, appConfig, HttpConfig, httpConfig, trustProxyOption } from './config';
import { loggablePath, registerConsoleHttp } from './console/console-http';
import { buildOpenApiDocument } from './docs/openapi';
import { answerClientError } from './common/http/client-error';
import { answerMethodNotAllowed } from './common/http/method-not-allowed';
import { checkRequestValue, parseJsonBody } from './common/http/request-body';
import { ACCEPTS_MULTIPART, registerMultipart } from './media/media-multipart';
import { RequestMetrics } from './metrics/request-metrics.service';
import { McpService } from './mcp/mcp.service';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Reads the PEM files named by TLS_CERT_FILE/TLS_KEY_FILE; a missing file stops start-up naming it. */
function readTls(tls: NonNullable<HttpConfig['tls']>): { cert: Buffer; key: Buffer } {
  const read = (variable: string, file: string): Buffer => {
    try {
      return readFileSync(file);
    } catch (err) {
      throw new Error(`Invalid configuration: ${variable}=${JSON.stringify(file)}: ${(err as Error).message}`, {
        cause: err,
      });
    }
  };
  return { cert: read('TLS_CERT_FILE', tls.certFile), key: read('TLS_KEY_FILE', tls.keyFile) };
}

/**
 * Builds the HTTP application exactly as production runs it (main.ts) and as e2e tests boot it:
 * Fastify (HTTPS when TLS files are configured, proxy trust per TRUST_PROXY), /api prefix,
 * request ids, the error shape for Fastify-level failures, Swagger.
 */
export async function createHttpApp(role: AppRole = 'all'): Promise<NestFastifyApplication> {
  const cfg: AppConfig = appConfig();
  const http: HttpConfig = httpConfig();
  const adapter = new FastifyAdapter({
    // Node answers an HTTP/1.1 request without Host with an empty 400 of its own; the service answers
    // it in the error shape instead (the first onRequest hook below).
    ...(http.tls
      ? { https: { ...readTls(http.tls), requireHostHeader: false } }
      : { http: { requireHostHeader: false } }),
    bodyLimit: cfg.bodyLimitBytes,
    // request.ip (per-address auth-failure limit, logs) and request.protocol follow X-Forwarded-*
    // only from the proxies trusted here.
    trustProxy: trustProxyOption(http.trustProxy),
    genReqId: (req: { headers: Record<string, string | string[] | undefined> }) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
    requestIdHeader: false,
    logger: false,
    // Requests still arriving while Fastify closes are answered (with Connection: close), not refused
    // with Fastify's own 503 body: by then HttpDrainService has closed the listener and drained.
    return503OnClosing: false,
    // What Node's HTTP parser refuses (malformed or oversized requests) in the error shape too.
    clientErrorHandler: answerClientError,
    // Routing failures (bad percent-encoding, overlong parameters) in the error shape too.
    frameworkErrors: (error: Error, request: FastifyRequest, reply: FastifyReply) => {
      void reply.header('X-Request-Id', request.id);
      sendError(reply, request, error, new Logger('HTTP'));
    },
  });
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRole(role), adapter, {
    logger: createLogger(cfg.logLevel, { format: cfg.logFormat }),
    bufferLogs: false,
    abortOnError: false,
    bodyParser: false, // ours below: JSON with depth, NUL and prototype checks
  });
  // The console, the MCP server and its OAuth authorization server live beside the API.
  app.setGlobalPrefix('api', {
    exclude: [
      'console',
      'console/{*path}',
      'connect/{*path}',
      'mcp',
      '.well-known/{*path}',
      'oauth/authorize',
      'oauth/token',
      'oauth/register',
      'oauth/revoke',
    ],
  });
  app.enableShutdownHooks();
  const fastify = app.getHttpAdapter().getInstance();
  answerMethodNotAllowed(fastify); // before any route is added: it learns them as they are
  await registerMultipart(app); // multipart/form-data for the chunk upload route only

  registerBodyParsers(fastify);
  registerConsoleHttp(fastify); // security headers on /console
  const httpLogger = new Logger('HTTP');
  // The per-request hooks take Fastify's `done` callback rather than being async: an async hook costs
  // every request a promise and a trip through the microtask queue.
  fastify.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done: HookDone) => {
    void reply.header('X-Request-Id', request.id);
    if (request.raw.httpVersion === '1.1' && request.headers.host === undefined) {
      // RFC 9112 section 3.2: an HTTP/1.1 request must name its host. Answered here: `done` is not called.
      void reply.header('Connection', 'close');
      return sendError(
        reply,
        request,
        AppError.validation('The Host header is required in an HTTP/1.1 request'),
        httpLogger,
      );
    }
    done();
  });
  // Request rate and latency by route pattern (never the raw URL: ids would explode the label set).
  const metrics = app.get(RequestMetrics);
  fastify.addHook('onResponse', (request: FastifyRequest, reply: FastifyReply, done: HookDone) => {
    const route = request.routeOptions?.url ?? 'unmatched';
    metrics.record(request.method, route, reply.statusCode, reply.elapsedTime / 1000);
    done();
  });
  // One access-log line per request, only when `info` logging is on (no per-request cost otherwise).
  if (['info', 'debug', 'trace'].includes(cfg.logLevel)) {
    fastify.addHook('onResponse', (request: FastifyRequest, reply: FastifyReply, done: HookDone) => {
      httpLogger.log({
        msg: 'request',
        requestId: request.id,
        method: request.method,
        path: loggablePath(request.url.split('?')[0]),
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime),
      });
      done();
    });
  }

  const document = buildOpenApiDocument(app, http.servers);
  app.get(McpService).describeTools(document); // the tools' input schemas are the API's
  if (!cfg.docsPublic) {
    const auth = app.get(AuthService);
    fastify.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done: HookDone) => {
      const path = request.url.split('?')[0] ?? '';
      if (path !== '/api/openapi.json' && path !== '/api/docs' && !path.startsWith('/api/docs/')) return done();
      // Answered here when refused: `done` is then not called.
      auth.authenticateRequest(request.headers, request.ip).then(
        () => done(),
        (err: unknown) => sendError(reply, request, err, httpLogger),
      );
    });
  }
  SwaggerModule.setup('api/docs', app, document, {
    jsonDocumentUrl: 'api/openapi.json',
    raw: ['json'],
    customSiteTitle: 'Social Publishing Service API',
    swaggerOptions: { persistAuthorization: true, displayOperationId: true },
  });
  return app;
}

/**
 * JSON and form bodies, parsed and checked once for every route: nesting depth, NUL characters and
 * prototype-poisoning keys are refused with 400 before validation sees them. Query strings get the
 * same check.
 */
function registerBodyParsers(fastify: FastifyInstance): void {
  const checked =
    (parse: (text: string) => unknown) =>
    (_req: FastifyRequest, body: string | Buffer, done: (err: Error | null, value?: unknown) => void) => {
      try {
        done(null, parse(body.toString()));
      } catch (err) {
        done(err as Error, undefined);
      }
    };
  fastify.addContentTypeParser('application/json', { parseAs: 'string' }, checked(parseJsonBody));
  fastify.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string' },
    checked((text) => {
      const value = { ...parseQueryString(text) };
      checkRequestValue(value);
      return value;
    }),
  );
  fastify.addHook('preValidation', (request: FastifyRequest, _reply: FastifyReply, done: HookDone) => {
    try {
      checkRequestValue(request.query);
    } catch (err) {
      return done(err as Error);
    }
    done();
  });
  requireJsonBodies(fastify);
}

/** `application/json` in any letter case, with or without parameters (`; charset=utf-8`). */
const JSON_CONTENT_TYPE = /^application\/json\s*(;|$)/i;

/**
 * The API's request bodies are JSON: on an `/api` route a body of any other type (or of none named)
 * is refused with 415 before anything reads, parses or validates it (a form body used to reach
 * validation as an object, a text/plain one as a string). The routes that read multipart (the chunk
 * upload) keep their own type and their own 415; the console keeps its HTML forms.
 */
function requireJsonBodies(fastify: FastifyInstance): void {
  const logger = new Logger('HTTP');
  fastify.addHook(
    'preParsing',
    (
      request: FastifyRequest,
      reply: FastifyReply,
      payload: RequestPayload,
      done: (err: Error | null, value?: RequestPayload) => void,
    ) => {
      const route = request.routeOptions.url;
      const config = request.routeOptions.config as unknown as Record<string, unknown> | undefined;
      if (
        !carriesBody(request) ||
        !route?.startsWith('/api/') ||
        config?.[ACCEPTS_MULTIPART] === true ||
        JSON_CONTENT_TYPE.test(request.headers['content-type'] ?? '')
      ) {
        return done(null, payload);
      }
      // Answered here: `done` is not called.
      sendError(
        reply,
        request,
        new AppError('UNSUPPORTED_MEDIA_TYPE', 'Unsupported request content type: send the body as application/json'),
        logger,
      );
    },
  );
}

/** Whether a request has a body, as Fastify decides it: a non-zero Content-Length or any Transfer-Encoding. */
function carriesBody(request: FastifyRequest): boolean {
  if (request.method === 'GET' || request.method === 'HEAD') return false;
  const length = request.headers['content-length'];
  return request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}
