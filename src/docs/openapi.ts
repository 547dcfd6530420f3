import { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { ErrorResponseDto } from '../common/errors/error-response.dto';

export const API_KEY_SCHEME = 'ApiKey';

const RATE_LIMIT_HEADERS = {
  'X-RateLimit-Limit': { description: "The key's rate per minute", schema: { type: 'integer', example: 100 } },
  'X-RateLimit-Remaining': {
    description: 'Whole requests that can be made right now',
    schema: { type: 'integer', example: 199 },
  },
  'X-RateLimit-Reset': {
    description: 'Unix time in seconds at which the bucket is full again',
    schema: { type: 'integer' },
  },
  'X-RateLimit-Burst': { description: "The key's burst size", schema: { type: 'integer', example: 200 } },
};

const errorContent = { 'application/json': { schema: { $ref: '#/components/schemas/ErrorResponseDto' } } };

/**
 * Builds the OpenAPI 3.0 document. Every secured operation gets the API key requirement, the
 * rate-limit headers on its success responses, and the 401/429/500 responses they all share.
 */
export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Social Publishing Service')
    .setDescription(
      'Schedule and publish posts to social networks, upload media in chunks, manage connected channels, ' +
        'read analytics and receive signed webhooks. Every operation needs an `X-API-Key` header; errors are ' +
        '`{error, message}`; lists are keyset-paginated with `limit` and `cursor`.',
    )
    .setVersion('1.0.0')
    .addServer('/', 'This server')
    .addApiKey(
      { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'An API key (`spk_...`)' },
      API_KEY_SCHEME,
    )
    .addSecurityRequirements(API_KEY_SCHEME)
    .build();
  const doc = SwaggerModule.createDocument(app, config, {
    operationIdFactory: (_controllerKey: string, methodKey: string) => methodKey,
    extraModels: [ErrorResponseDto],
  });
  for (const item of Object.values(doc.paths)) {
    for (const op of [item.get, item.put, item.post, item.delete, item.patch]) {
      if (!op) continue;
      const isPublic = Array.isArray(op.security) && op.security.length === 0;
      if (isPublic) continue;
      for (const [status, response] of Object.entries(op.responses)) {
        if (status.startsWith('2') && response && 'description' in response) {
          response.headers = { ...RATE_LIMIT_HEADERS, ...(response.headers ?? {}) };
        }
      }
      op.responses['401'] ??= {
        description: 'UNAUTHORIZED: API key missing ("API key required") or invalid ("Invalid API key")',
        content: errorContent,
      };
      op.responses['429'] ??= {
        description: 'RATE_LIMIT_EXCEEDED',
        headers: {
          ...RATE_LIMIT_HEADERS,
          'Retry-After': { description: 'Seconds until one request is allowed', schema: { type: 'integer' } },
        },
        content: errorContent,
      };
      op.responses['500'] ??= { description: 'INTERNAL_ERROR', content: errorContent };
    }
  }
  return doc;
}
