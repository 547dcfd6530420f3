import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { SwaggerModule } from '@nestjs/swagger';
import { parse as parseQueryString } from 'node:querystring';
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction as HookDone } from 'fastify';
import { AppRole } from './app-role';
import { AppModule } from './app.module';
import { AuthService } from './auth/auth.service';
import { sendError } from './common/errors';
import { createLogger } from './common/logger';
import { AppConfig, appConfig, HttpConfig, httpConfig, trustProxyOption } from './config';
import { registerConsoleHttp } from './console/console-http';
import { buildOpenApiDocument } from './docs/openapi';
import { checkRequestValue, parseJsonBody } from './common/http/request-body';
import { registerMultipart } from './media/media-multipart';
import { MetricsService } from './metrics/metrics.service';

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
    ...(http.tls ? { https: readTls(http.tls) } : {}),
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
    return503OnClosing: true,
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
  app.setGlobalPrefix('api', { exclude: ['console', 'console/{*path}'] }); // the console lives beside the API
  app.enableShutdownHooks();
  await registerMultipart(app); // multipart/form-data for the chunk upload route only

  const fastify = app.getHttpAdapter().getInstance();
  registerBodyParsers(fastify);
  registerConsoleHttp(fastify); // security headers on /console
  closeKeepAliveOnShutdown(fastify);
  const httpLogger = new Logger('HTTP');
  // The per-request hooks take Fastify's `done` callback rather than being async: an async hook costs
  // every request a promise and a trip through the microtask queue.
  fastify.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done: HookDone) => {
    void reply.header('X-Request-Id', request.id);
    done();
  });
  // Request rate and latency by route pattern (never the raw URL: ids would explode the label set).
  const metrics = app.get(MetricsService);
  fastify.addHook('onResponse', (request: FastifyRequest, reply: FastifyReply, done: HookDone) => {
    const route = request.routeOptions?.url ?? 'unmatched';
    metrics.recordRequest(request.method, route, reply.statusCode, reply.elapsedTime / 1000);
    done();
  });
  // One access-log line per request, only when `info` logging is on (no per-request cost otherwise).
  if (['info', 'debug', 'trace'].includes(cfg.logLevel)) {
    fastify.addHook('onResponse', (request: FastifyRequest, reply: FastifyReply, done: HookDone) => {
      httpLogger.log({
        msg: 'request',
        requestId: request.id,
        method: request.method,
        path: request.url.split('?')[0],
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime),
      });
      done();
    });
  }

  const document = buildOpenApiDocument(app, http.servers);
  if (!cfg.docsPublic) {
    const auth = app.get(AuthService);
    fastify.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done: HookDone) => {
      const path = request.url.split('?')[0] ?? '';
      if (path !== '/api/openapi.json' && path !== '/api/docs' && !path.startsWith('/api/docs/')) return done();
      // Answered here when refused: `done` is then not called.
      auth.authenticate(request.headers['x-api-key'], request.ip).then(
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
 * Node's `server.close()` closes the keep-alive connections that are idle at that moment, not the ones
 * whose request is still in flight: once that request is answered, its socket would hold the stopping
 * process for the keep-alive timeout (72 s), far past SHUTDOWN_TIMEOUT_MS. From the moment Fastify
 * starts closing, connections are closed as soon as they fall idle. Nothing runs per request.
 */
function closeKeepAliveOnShutdown(fastify: FastifyInstance): void {
  fastify.addHook('preClose', (done: HookDone) => {
    const server = fastify.server;
    const sweep = setInterval(() => server.closeIdleConnections(), 100);
    sweep.unref();
    server.once('close', () => clearInterval(sweep));
    done();
  });
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
}
