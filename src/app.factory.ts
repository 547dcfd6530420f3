import { randomUUID } from 'node:crypto';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { SwaggerModule } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppRole } from './app-role';
import { AppModule } from './app.module';
import { AuthService } from './auth/auth.service';
import { sendError } from './common/errors';
import { createLogger } from './common/logger';
import { AppConfig, appConfig } from './config';
import { buildOpenApiDocument } from './docs/openapi';
import { registerMultipart } from './media/media-multipart';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
/**
 * Builds the HTTP application exactly as production runs it (main.ts) and as e2e tests boot it:
 * Fastify, /api prefix, request ids, the error shape for Fastify-level failures, Swagger.
 */
export async function createHttpApp(role: AppRole = 'all'): Promise<NestFastifyApplication> {
  const cfg: AppConfig = appConfig();
  const adapter = new FastifyAdapter({
    bodyLimit: cfg.bodyLimitBytes,
    trustProxy: false,
    genReqId: (req: { headers: Record<string, string | string[] | undefined> }) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
    requestIdHeader: false,
    logger: false,
    return503OnClosing: true,
  });
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRole(role), adapter, {
    logger: createLogger(cfg.logLevel),
    bufferLogs: false,
    abortOnError: false,
  });
  app.setGlobalPrefix('api');
  app.enableShutdownHooks();
  await registerMultipart(app); // multipart/form-data for the chunk upload route only

  const fastify = app.getHttpAdapter().getInstance();
  const httpLogger = new Logger('HTTP');
  fastify.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    void reply.header('X-Request-Id', request.id);
  });
  // One access-log line per request, only when `info` logging is on (no per-request cost otherwise).
  if (['info', 'debug', 'trace'].includes(cfg.logLevel)) {
    fastify.addHook('onResponse', async (request: FastifyRequest, reply: FastifyReply) => {
      httpLogger.log({
        msg: 'request',
        requestId: request.id,
        method: request.method,
        path: request.url.split('?')[0],
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime),
      });
    });
  }

  const document = buildOpenApiDocument(app);
  if (!cfg.docsPublic) {
    const auth = app.get(AuthService);
    fastify.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
      const path = request.url.split('?')[0] ?? '';
      if (path === '/api/openapi.json' || path === '/api/docs' || path.startsWith('/api/docs/')) {
        try {
          await auth.authenticate(request.headers['x-api-key'], request.ip);
        } catch (err) {
          sendError(reply, request, err, httpLogger);
          return reply;
        }
      }
      return undefined;
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
