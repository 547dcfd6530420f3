/**
 * multipart/form-data for the chunk upload route, and only for it.
 *
 * @fastify/multipart registers a content-type parser that does not read the body: the route handler
 * streams the parts itself (`req.parts()`), after the guards have authenticated the request. Every other
 * route answers a multipart request with 415, as it did before the plugin was registered.
 */
import fastifyMultipart from '@fastify/multipart';
import { Logger } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { AppError, sendError } from '../common/errors';

/** `@RouteConfig({ [ACCEPTS_MULTIPART]: true })` marks a route that reads multipart bodies. */
export const ACCEPTS_MULTIPART = 'acceptsMultipart';

/** Upper bounds for the non-file parts of a chunk upload (the file size limit is set per request). */
export const MULTIPART_LIMITS = {
  fields: 8,
  fieldNameSize: 64,
  fieldSize: 256,
  files: 1,
  parts: 10,
  headerPairs: 32,
} as const;

export async function registerMultipart(app: NestFastifyApplication): Promise<void> {
  await app.register(fastifyMultipart, { limits: { ...MULTIPART_LIMITS }, throwFileSizeLimit: true });
  const logger = new Logger('HTTP');
  app
    .getHttpAdapter()
    .getInstance()
    .addHook('preValidation', (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
      if (!request.isMultipart() || !request.routeOptions.url) return done();
      const config = request.routeOptions.config as unknown as Record<string, unknown> | undefined;
      if (config?.[ACCEPTS_MULTIPART] === true) return done();
      // Answered here: `done` is not called.
      sendError(reply, request, new AppError('UNSUPPORTED_MEDIA_TYPE', 'Unsupported request content type'), logger);
    });
}
