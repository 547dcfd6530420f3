import { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import type { ParameterObject, ResponseObject, SchemaObject } from '@nestjs/swagger';
import { version } from '../../package.json';
import { ERROR_EXAMPLES, errorCodeOf } from '../common/decorators/api-errors.decorator';
import { ErrorResponseDto } from '../common/errors/error-response.dto';
import { ServerEnvironment, serverEnvironments } from '../config/http.config';
import { IDEMPOTENCY_KEY_MAX_LENGTH } from '../common/http/idempotency-key';
import { REQUIRED_SCOPE_EXTENSION } from '../auth/scope.decorator';
import { SCOPE_DESCRIPTIONS, Scope } from '../auth/scopes.format';
import { PROVIDER_OPTIONS_SCHEMAS } from '../providers/provider.list';
import { describeRequestBodies } from './request-schemas';
import { connectChannelVariants } from '../channels/dto/connect-channel.dto';
import { mediaConfig, MediaConfig } from '../config/media.config';
import { videoConfig, VideoConfig } from '../config/video.config';
import { SEND_OUT_CONFLICT } from '../posts/dto/create-post.dto';

export const API_KEY_SCHEME = 'ApiKey';
/** The same key as `Authorization: Bearer <key>`: either scheme authenticates an operation. */
export const BEARER_KEY_SCHEME = 'BearerKey';

const RATE_LIMIT_HEADERS = {
  'X-RateLimit-Limit': { description: "The key's rate per minute", schema: { type: 'integer', example: 100 } },
  'X-RateLimit-Remaining': {
    description: 'Whole requests that can be made right now',
    schema: { type: 'integer', example: 199 },
  },
  'X-RateLimit-Reset': {
    description: 'Unix time in seconds at which the bucket is full again',
    schema: { type: 'integer', example: 1795000000 },
  },
  'X-RateLimit-Burst': { description: "The key's burst size", schema: { type: 'integer', example: 200 } },
};

const ERROR_SCHEMA_REF = '#/components/schemas/ErrorResponseDto';
const errorContent = (example: object) => ({ 'application/json': { schema: { $ref: ERROR_SCHEMA_REF }, example } });

/** Every tag, in the order Swagger UI shows them, with what its operations are for. */
const TAGS: Array<[string, string]> = [
  [
    'Posts',
    'Create, schedule, publish and follow posts. A post goes to one or more channels; each channel is a target ' +
      'with its own status, link and error.',
  ],
  [
    'Media',
    'Chunked uploads in three steps (initialize, chunks in any order or in parallel, finalize) and the media ' +
      'items they create, to attach to posts.',
  ],
  [
    'Channels',
    'Connect social accounts with their credentials or through OAuth (authorization code with PKCE), list them, ' +
      'disconnect them; give each a posting schedule (weekly slots in its time zone) for queued posts.',
  ],
  [
    'Connect links',
    'Hosted pages, opened without signing in, where your customers connect their own accounts to the workspace ' +
      'and come back to your redirect URL; revocable, expiring.',
  ],
  ['Providers', 'The social networks this server can connect: how each connects, whether it is enabled, its limits.'],
  ['Sandbox', 'The built-in sandbox network: what it received from a sandbox channel (docs/guide.md section 11).'],
  [
    'Webhooks',
    'Subscribe HTTPS endpoints to events, signed per Standard Webhooks; rotate secrets, send test events and ' +
      'read the delivery log.',
  ],
  ['Events', 'The events of the workspace (the payloads webhooks receive), newest first, to catch up after downtime.'],
  ['Analytics', 'Engagement figures per post and daily series per channel, read from the networks.'],
  [
    'API keys',
    'Create, list and revoke the workspace\'s API keys. A key holds scopes (`["*"]`: all of them); each operation ' +
      'names the one it needs (`x-required-scope`), and a key without it answers 403 FORBIDDEN.',
  ],
  ['Workspace', "The calling key's workspace and its settings (whether posts need an approval)."],
  [
    'Workspaces',
    "Platforms: your organization's workspaces, one per customer of your product. Create them, act in one with " +
      'the header `X-Workspace-Id`, read its usage, erase it (scope `workspaces:manage`).',
  ],
  ['Health', 'Liveness and dependency check, without an API key.'],
];

/** What the 404 of an operation of this tag says, as the services word it. */
const NOT_FOUND_BY_TAG: Record<string, string> = {
  Posts: 'Post not found',
  Media: 'Media not found',
  Channels: 'Channel not found',
  'Connect links': 'Connect link not found',
  Webhooks: 'Webhook not found',
  Analytics: 'Post not found',
  'API keys': 'API key not found',
  Workspace: 'Workspace not found',
  Workspaces: 'Workspace not found',
};

const IDEMPOTENCY_KEY_PARAMETER: ParameterObject = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Makes a retry safe: scoped to the API key and kept 24 h. A retry with the same key and body replays the ' +
    'stored status and body (with `Idempotent-Replayed: true`) and does nothing again; the same key with another ' +
    'body or endpoint answers 422 `IDEMPOTENCY_KEY_REUSED`; while the first request is still running, 409 ' +
    '`CONFLICT`. Failed requests are not stored. Generate one per logical operation (a UUID).',
  schema: { type: 'string', minLength: 1, maxLength: IDEMPOTENCY_KEY_MAX_LENGTH },
};

/** The reusable parameter of every authenticated operation: the workspace it acts in (docs/adr/0052). */
export const WORKSPACE_ID_PARAMETER_NAME = 'WorkspaceId';
const WORKSPACE_ID_PARAMETER: ParameterObject = {
  name: 'X-Workspace-Id',
  in: 'header',
  required: false,
  description:
    "Runs the request in this workspace of your organization instead of the key's own (platforms: one " +
    'workspace per customer). Needs the scope `workspaces:manage` (403 FORBIDDEN naming it otherwise); a ' +
    "workspace of another organization, an unknown or an erased one answers 404. The key's scopes apply; rate " +
    'limits, Idempotency-Key and approvals are kept per workspace.',
  schema: { type: 'string', format: 'uuid' },
};

/** The current origin: Swagger UI's default, so "Try it out" calls the server that served the page. */
export const THIS_SERVER: ServerEnvironment = { url: '/api', description: 'This server' };

/**
 * The addresses the committed docs/openapi.json is generated with, so the file does not change with
 * whoever ran `npm run openapi` (see README, "Environments"): one server per environment, its host a
 * variable to fill in (the document names no real or placeholder host).
 */
const DEFAULT_HOSTS: Record<string, string> = {
  Production: 'api.your-domain.test',
  Development: 'dev.your-domain.test',
  'Local (HTTPS)': 'localhost:3000',
};

export const EXAMPLE_SERVERS: ServerEnvironment[] = serverEnvironments({
  production: 'https://{host}/api',
  development: 'https://{host}/api',
  local: 'https://{host}/api',
}).map((server) => ({
  ...server,
  variables: { host: { default: DEFAULT_HOSTS[server.description] ?? 'localhost:3000', description: 'Host and port' } },
}));

/**
 * Builds the OpenAPI 3.0 document. Paths are relative to a server address ending with `/api`:
 * the current origin first, then the configured environments (`servers`). Every secured operation gets the API key requirement, the
 * rate-limit headers on its success responses, and the 401/429/500 responses they all share.
 * Every error response carries an example with its own code (and, for 404, the resource's message).
 */
export function buildOpenApiDocument(app: INestApplication, servers: ServerEnvironment[]): OpenAPIObject {
  const builder = new DocumentBuilder()
    .setTitle('Social Publishing Service')
    .setDescription(
      'Schedule and publish posts to social networks, upload media in chunks, manage connected channels, ' +
        'read analytics and receive signed webhooks. Every operation needs an API key, in the `X-API-Key` header ' +
        'or as `Authorization: Bearer <key>`; errors are ' +
        '`{error, message}`; lists are keyset-paginated with `limit` and `cursor`. AI agents can use the same ' +
        'operations as Model Context Protocol tools: the MCP server at `/mcp` (Streamable HTTP, beside `/api`) and ' +
        'the `@social-publishing/mcp` stdio package (docs/guide.md, "Agents (MCP)").',
    )
    .setVersion(version)
    .setLicense('MIT', 'https://opensource.org/licenses/MIT')
    .addApiKey(
      { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'An API key (`spk_...`)' },
      API_KEY_SCHEME,
    )
    .addBearerAuth(
      {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'API key (spk_...)',
        description:
          'The same API key (`spk_...`) as `Authorization: Bearer <key>`. Send one of the two headers; both ' +
          'naming different keys answer 401.',
      },
      BEARER_KEY_SCHEME,
    )
    .addSecurityRequirements(API_KEY_SCHEME)
    .addSecurityRequirements(BEARER_KEY_SCHEME);
  for (const [name, description] of TAGS) builder.addTag(name, description);
  for (const server of [THIS_SERVER, ...servers]) builder.addServer(server.url, server.description, server.variables);
  const doc = SwaggerModule.createDocument(app, builder.build(), {
    ignoreGlobalPrefix: true,
    operationIdFactory: (_controllerKey: string, methodKey: string) => methodKey,
    extraModels: [ErrorResponseDto],
  });
  (doc.components!.parameters ??= {})[WORKSPACE_ID_PARAMETER_NAME] = WORKSPACE_ID_PARAMETER;
  describeProviderOptions(doc);
  describeRequestBodies(doc);
  const connect = connectChannelVariants();
  Object.assign(doc.components!.schemas!, connect.variants, { ConnectChannelDto: connect.body });
  describeUploadRules(doc, app.get<MediaConfig>(mediaConfig.KEY), app.get<VideoConfig>(videoConfig.KEY));
  const createPost = doc.components!.schemas!.CreatePostDto as SchemaObject;
  createPost.not = SEND_OUT_CONFLICT;
  for (const item of Object.values(doc.paths)) {
    for (const op of [item.get, item.put, item.post, item.delete, item.patch]) {
      if (!op) continue;
      // Every operation reads a query string and a path, and refuses malformed ones (NUL, broken
      // percent-encoding, unknown or invalid parameters) before anything else.
      op.responses['400'] ??= {
        description: 'VALIDATION_ERROR: a malformed or invalid query string or path',
        content: errorContent({
          error: 'VALIDATION_ERROR',
          message: 'foo: is not a known field',
          details: [{ field: 'foo', message: 'is not a known field' }],
        }),
      };
      // The database down or too slow: any operation (docs/guide.md, "When PostgreSQL is unreachable").
      op.responses['503'] ??= {
        description:
          'SERVICE_UNAVAILABLE: the database cannot be reached or did not answer in time; retry after Retry-After',
        headers: { 'Retry-After': { description: 'Seconds to wait', schema: { type: 'integer', example: 5 } } },
        content: errorContent(ERROR_EXAMPLES.SERVICE_UNAVAILABLE),
      };
      if (op.parameters?.some((p) => 'in' in p && p.in === 'path')) {
        op.responses['414'] ??= {
          description: 'VALIDATION_ERROR: a path parameter is too long',
          content: errorContent({ error: 'VALIDATION_ERROR', message: 'A path parameter is too long' }),
        };
      }
      if (op.requestBody) {
        op.responses['413'] ??= {
          description: 'PAYLOAD_TOO_LARGE: the body is over the limit (BODY_LIMIT_BYTES)',
          content: errorContent(ERROR_EXAMPLES.PAYLOAD_TOO_LARGE),
        };
        op.responses['415'] ??= {
          description: 'UNSUPPORTED_MEDIA_TYPE: the body is not of the type this operation takes',
          content: errorContent(ERROR_EXAMPLES.UNSUPPORTED_MEDIA_TYPE),
        };
      }
      const isPublic = Array.isArray(op.security) && op.security.length === 0;
      if (isPublic) continue;
      op.parameters = [...(op.parameters ?? []), { $ref: `#/components/parameters/${WORKSPACE_ID_PARAMETER_NAME}` }];
      op.responses['404'] ??= {
        description: 'NOT_FOUND: X-Workspace-Id names no workspace of your organization',
        content: errorContent({ error: 'NOT_FOUND', message: 'Workspace not found' }),
      };
      const scope = (op as unknown as Record<string, unknown>)[REQUIRED_SCOPE_EXTENSION] as Scope | undefined;
      if (scope) {
        const line = `Required scope: \`${scope}\` (${SCOPE_DESCRIPTIONS[scope]}).`;
        op.description = op.description ? `${op.description}\n\n${line}` : line;
        op.responses['403'] ??= {
          description: `FORBIDDEN: the API key lacks the scope ${scope}`,
          content: errorContent({
            error: 'FORBIDDEN',
            message: `This API key lacks the scope ${scope} (${SCOPE_DESCRIPTIONS[scope]})`,
          }),
        };
      }
      for (const [status, response] of Object.entries(op.responses)) {
        if (status.startsWith('2') && response && 'description' in response) {
          response.headers = { ...RATE_LIMIT_HEADERS, ...(response.headers ?? {}) };
        }
      }
      op.responses['401'] ??= {
        description:
          'UNAUTHORIZED: API key missing ("API key required"), invalid ("Invalid API key"), or X-API-Key and ' +
          'Authorization: Bearer naming different keys. The `WWW-Authenticate` header names both ways to send a key. ' +
          'An OAuth access token of a remote MCP agent is named as such: "Invalid or expired access token", ' +
          '"This access token\'s grant was revoked" (and, as a 403, "This access token lacks the scope ...").',
        content: {
          'application/json': {
            schema: { $ref: ERROR_SCHEMA_REF },
            examples: {
              invalid: { summary: 'Unknown, revoked or expired key', value: ERROR_EXAMPLES.UNAUTHORIZED },
              missing: {
                summary: 'No X-API-Key header and no Authorization: Bearer',
                value: {
                  error: 'UNAUTHORIZED',
                  message: 'API key required',
                },
              },
            },
          },
        },
      };
      op.responses['429'] ??= {
        description: 'RATE_LIMIT_EXCEEDED',
        headers: {
          ...RATE_LIMIT_HEADERS,
          'Retry-After': {
            description: 'Seconds until one request is allowed',
            schema: { type: 'integer', example: 1 },
          },
        },
        content: errorContent(ERROR_EXAMPLES.RATE_LIMIT_EXCEEDED),
      };
      op.responses['500'] ??= { description: 'INTERNAL_ERROR', content: errorContent(ERROR_EXAMPLES.INTERNAL_ERROR) };
      for (const [status, response] of Object.entries(op.responses)) {
        exampleError(response as ResponseObject, Number(status), op.tags?.[0]);
      }
    }
    const post = item.post;
    const requestBody = post?.requestBody;
    const multipart = requestBody && 'content' in requestBody && 'multipart/form-data' in requestBody.content;
    if (post && !multipart && !(Array.isArray(post.security) && post.security.length === 0)) {
      post.parameters = [...(post.parameters ?? []), IDEMPOTENCY_KEY_PARAMETER];
      for (const [status, response] of Object.entries(post.responses)) {
        if (status.startsWith('2') && response && 'description' in response) {
          response.headers = {
            ...(response.headers ?? {}),
            'Idempotent-Replayed': {
              description: '`true` when this is the stored answer of an earlier request with the same Idempotency-Key',
              schema: { type: 'string', enum: ['true'] },
            },
          };
        }
      }
      post.responses['409'] ??= {
        description: 'CONFLICT: a request with this Idempotency-Key is still in progress',
        content: errorContent({
          error: 'CONFLICT',
          message: 'A request with this Idempotency-Key is still in progress; retry when it has finished',
        }),
      };
      const reused = 'IDEMPOTENCY_KEY_REUSED: this Idempotency-Key was used with another request';
      const own = post.responses['422'] as ResponseObject | undefined;
      const ownMedia = own?.content?.['application/json'];
      if (!own || !ownMedia || !('example' in ownMedia)) {
        post.responses['422'] ??= { description: reused, content: errorContent(ERROR_EXAMPLES.IDEMPOTENCY_KEY_REUSED) };
      } else {
        // The operation's own 422 (e.g. UNPROCESSABLE_MEDIA) and the Idempotency-Key one, as two examples.
        const example = ownMedia.example as { error: string };
        own.description = `${own.description}; ${reused}`;
        ownMedia.examples = {
          [example.error]: { value: example },
          IDEMPOTENCY_KEY_REUSED: { value: ERROR_EXAMPLES.IDEMPOTENCY_KEY_REUSED },
        };
        delete ownMedia.example;
      }
    }
  }
  return doc;
}

/**
 * Each network's options schema as a component (`SandboxOptions`); `targets[i].options` of the request
 * is any of them (the client's `ProviderOptions` types them by provider id).
 */
function describeProviderOptions(doc: OpenAPIObject): void {
  const schemas = (doc.components ??= {}).schemas ?? (doc.components.schemas = {});
  for (const { name, schema } of PROVIDER_OPTIONS_SCHEMAS)
    schemas[name] = asOpenApi30(structuredClone(schema)) as never;
  const override = schemas.TargetOverrideDto as { properties?: Record<string, Record<string, unknown>> } | undefined;
  const options = override?.properties?.options;
  if (options && PROVIDER_OPTIONS_SCHEMAS.length > 0) {
    delete options.type;
    delete options.additionalProperties;
    options.anyOf = PROVIDER_OPTIONS_SCHEMAS.map(({ name }) => ({ $ref: `#/components/schemas/${name}` }));
  }
}

/**
 * A JSON Schema as OpenAPI 3.0 can hold it: without the conditional rules (`if`/`then`/`else`, which
 * 3.0 lacks), dropping the `allOf` entries left empty. The rules stay in `GET /providers`'
 * `optionsSchema`, in the schema's descriptions and in the server's checks.
 */
function asOpenApi30(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(asOpenApi30);
  if (!schema || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'if' || key === 'then' || key === 'else') continue;
    out[key] = key === 'enum' || key === 'required' || key === 'default' ? value : asOpenApi30(value);
  }
  if (Array.isArray(out.allOf)) {
    const kept = (out.allOf as unknown[]).filter((s) => !(s && typeof s === 'object' && Object.keys(s).length === 0));
    if (kept.length > 0) out.allOf = kept;
    else delete out.allOf;
  }
  return out;
}

/**
 * Gives an error response without an example the one of its status, and a 404 the message of
 * its resource, so no example shows a code the status never carries.
 */
function exampleError(response: ResponseObject, status: number, tag: string | undefined): void {
  const media = response.content?.['application/json'];
  const code = errorCodeOf(status);
  if (!media || !code || status < 400 || !media.schema || !('$ref' in media.schema)) return;
  if (media.schema.$ref !== ERROR_SCHEMA_REF) return;
  if (!media.example && !media.examples) media.example = ERROR_EXAMPLES[code];
  const notFound = tag ? NOT_FOUND_BY_TAG[tag] : undefined;
  if (status === 404 && notFound) media.example = { error: 'NOT_FOUND', message: notFound };
}

/**
 * The upload limits of this server's configuration: the media types it takes (MEDIA_ALLOWED_TYPES) as
 * `mimeType`'s set, and the largest size (MEDIA_MAX_BYTES, MEDIA_MAX_VIDEO_BYTES for videos) as `size`'s
 * maximum. Outside them the answer is 415 and 413, as the operation documents.
 */
function describeUploadRules(doc: OpenAPIObject, media: MediaConfig, video: VideoConfig): void {
  const schema = doc.components?.schemas?.InitializeUploadDto as SchemaObject | undefined;
  const properties = schema?.properties as Record<string, SchemaObject> | undefined;
  if (!properties?.mimeType || !properties.size) return;
  properties.mimeType.enum = [...media.allowedTypes];
  properties.size.maximum = Math.max(media.maxBytes, video.maxVideoBytes);
  properties.size.description =
    `Total size in bytes: at most ${media.maxBytes} (${mib(media.maxBytes)}) for an image and ` +
    `${video.maxVideoBytes} (${mib(video.maxVideoBytes)}) for a video on this server; above it the answer is 413.`;
}

const mib = (bytes: number) => `${Math.round((bytes / 1024 / 1024) * 10) / 10} MiB`;
