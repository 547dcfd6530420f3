import { randomUUID } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { rateLimitBucketOf, revokedKeyMarker } from '../auth/api-key.format';
import { actorOfKey } from '../auth/scopes.format';
import { AuthService, revokedCredentialError } from '../auth/auth.service';
import { AppError, sendError, toErrorResponse } from '../common/errors';
import { IdempotencyService } from '../idempotency/idempotency.service';
import { ApiKeyThrottlerGuard } from '../rate-limit/api-key-throttler.guard';
import { version } from '../../package.json';
import { McpToolHandlers, type ToolAnswer } from './mcp-tool-handlers';
import { MCP_PROMPTS, MCP_RESOURCES, renderPrompt } from './mcp-context';
import { requireScope } from './mcp-scopes';
import { MCP_INSTRUCTIONS, MCP_TOOLS, type McpScope, type McpToolSpec } from './mcp-tools';
import { describeTool, type OpenApiLike, splitArguments, type ToolInput, toolInput } from './tool-schemas';

/** The principal of an API key, as the REST API's key lookup answers it. */
type AuthContext = Awaited<ReturnType<AuthService['authenticateRequest']>>;

/** Who calls: an API key's principal, with its scopes. */
export type McpPrincipal = AuthContext;

interface DescribedTool {
  spec: McpToolSpec;
  input: ToolInput;
  tool: Tool;
}

/** Where the protected-resource metadata of /mcp lives (RFC 9728), named by every 401 of /mcp. */
export const PROTECTED_RESOURCE_PATH = '/.well-known/oauth-protected-resource';

/**
 * The remote MCP server at /mcp (Streamable HTTP, stateless: every POST is answered on its own, so any
 * instance behind a load balancer can take it). Each request authenticates like the REST API (the
 * same key lookup); each tool call then takes a token from the key's rate-limit bucket, checks the
 * tool's scope, runs the tool's adapter (mcp-tool-handlers.ts) and is logged. Write tools that
 * create run through the idempotency store under the REST route's method and path, so a key reused
 * on REST and MCP for the same request replays too.
 */
@Injectable()
export class McpService {
  private readonly logger = new Logger('MCP');
  private tools: DescribedTool[] = [];

  constructor(
    private readonly auth: AuthService,
    private readonly throttle: ApiKeyThrottlerGuard,
    private readonly idempotency: IdempotencyService,
    private readonly handlers: McpToolHandlers,
  ) {}

  /** Derives each tool's input schema from the API's OpenAPI document (called once at start-up). */
  describeTools(document: object): void {
    this.tools = MCP_TOOLS.map((spec) => {
      const input = toolInput(spec, document as OpenApiLike);
      const tool = describeTool(spec, input) as Tool;
      return { spec, input, tool };
    });
  }

  /** The URL of the protected-resource metadata, for `WWW-Authenticate`. */
  resourceMetadataUrl(req: FastifyRequest): string {
    return `${this.baseUrl(req)}${PROTECTED_RESOURCE_PATH}`;
  }

  /** The address the request came to (X-Forwarded-* from trusted proxies, see TRUST_PROXY). */
  baseUrl(req: FastifyRequest): string {
    return `${req.protocol}://${req.host}`;
  }

  /** Answers one request to /mcp (POST: JSON-RPC messages; GET and DELETE: 405 in stateless mode). */
  async handle(req: FastifyRequest, reply: FastifyReply): Promise<void> {
    let principal: McpPrincipal;
    try {
      principal = await this.authenticate(req);
    } catch (err) {
      if (err instanceof AppError && err.code === 'UNAUTHORIZED') {
        // RFC 6750 section 3.1: a token that was sent and refused (expired, revoked) is `invalid_token`, so an
        // OAuth client refreshes it or authorizes again; without one, only where to start (RFC 9728).
        const sent = /^Bearer\s/i.test(String(req.headers.authorization ?? '')) || !!req.headers['x-api-key'];
        void reply.header(
          'WWW-Authenticate',
          `Bearer resource_metadata="${this.resourceMetadataUrl(req)}"${sent ? ', error="invalid_token"' : ''}`,
        );
      }
      sendError(reply, req, err, this.logger);
      return;
    }
    if (req.method !== 'POST') {
      // Stateless: no session, so no server-initiated stream (GET) and nothing to end (DELETE).
      void reply
        .status(405)
        .header('Allow', 'POST')
        .send({
          jsonrpc: '2.0',
          error: { code: -32000, message: 'Method not allowed: send JSON-RPC messages by POST' },
          id: null,
        });
      return;
    }
    const server = this.createServer(principal, req.id);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    reply.hijack();
    reply.raw.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req.raw, reply.raw, req.body);
  }

  private authenticate(req: FastifyRequest): Promise<McpPrincipal> {
    return this.auth.authenticateRequest(req.headers, req.ip);
  }

  /**
   * An MCP server bound to one caller: its tools, resources and prompts. The SDK's low-level `Server`,
   * not `McpServer`: the latter advertises `listChanged: true` for every capability it is given, a
   * notification this server, stateless and answering each POST on its own, can never send (and the
   * lists never change while the process runs).
   */
  private createServer(principal: McpPrincipal, requestId: string): Server {
    const server = new Server(
      { name: 'social-publishing', title: 'Social Publishing Service', version },
      { capabilities: { tools: {}, resources: {}, prompts: {} }, instructions: MCP_INSTRUCTIONS },
    );
    // The tools' schemas are JSON Schemas from the OpenAPI document, not zod: the low-level handlers.
    server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: this.tools.map((t) => t.tool) }));
    server.setRequestHandler(CallToolRequestSchema, (request) =>
      this.callTool(principal, requestId, request.params.name, request.params.arguments ?? {}),
    );
    this.registerContext(server, principal, requestId);
    return server;
  }

  /** One tool call: scope, rate limit, idempotency for creations, the adapter, a log line. */
  async callTool(
    principal: McpPrincipal,
    requestId: string,
    name: string,
    args: Record<string, unknown>,
  ): Promise<CallToolResult> {
    const started = Date.now();
    const described = this.tools.find((t) => t.spec.name === name);
    let idempotencyKey: string | undefined;
    try {
      if (!described) throw AppError.validation(`Unknown tool ${name}`);
      const { spec, input } = described;
      await this.admit(principal, spec.scope);
      const split = splitArguments(input, args);
      if (split.unknown.length > 0) {
        throw AppError.invalid(split.unknown.map((field) => ({ field, message: 'is not a known field' })));
      }
      const call = { actor: actorOfKey(principal), args: split };
      let answer: ToolAnswer;
      if (spec.idempotent) {
        idempotencyKey = split.idempotencyKey ?? randomUUID();
        const outcome = await this.idempotency.execute(
          {
            apiKeyId: principal.apiKeyId,
            key: idempotencyKey,
            method: spec.operation.method,
            path: `/api${spec.operation.path}`,
            body: split.body,
            ...(principal.keyWorkspaceId ? { actingWorkspaceId: principal.workspaceId } : {}),
          },
          () => this.handlers.run(spec.name, call),
        );
        answer = { status: outcome.status, body: outcome.body };
      } else {
        answer = await this.handlers.run(spec.name, call);
      }
      this.log(principal, requestId, name, answer.status, started);
      const body = (answer.body ?? {}) as Record<string, unknown>;
      return {
        content: [{ type: 'text', text: JSON.stringify(body) }],
        structuredContent: body,
        ...(idempotencyKey ? { _meta: { idempotencyKey } } : {}),
      };
    } catch (err) {
      const { status, body } = toErrorResponse(err);
      if (status >= 500 && body.error === 'INTERNAL_ERROR') {
        this.logger.error({
          msg: 'Unhandled error in an MCP tool',
          requestId,
          tool: name,
          err: err instanceof Error ? err.message : String(err),
          stack: err instanceof Error ? err.stack : undefined,
        });
      }
      this.log(principal, requestId, name, status, started);
      return {
        isError: true,
        content: [{ type: 'text', text: `${body.error}: ${body.message}` }],
        structuredContent: body as unknown as Record<string, unknown>,
        ...(idempotencyKey ? { _meta: { idempotencyKey } } : {}),
      };
    }
  }

  /** The scope, then a token from the caller's bucket (429 as a tool error when it is empty). */
  private async admit(principal: McpPrincipal, scope: McpScope): Promise<void> {
    requireScope(principal, scope);
    const taken = await this.throttle.take({
      id: rateLimitBucketOf(principal),
      perMinute: principal.rateLimitPerMinute,
      burst: principal.rateLimitBurst,
      revokedMarker: revokedKeyMarker(principal.apiKeyId),
    });
    if (taken === 'revoked') throw revokedCredentialError(principal.credential);
  }

  private log(principal: McpPrincipal, requestId: string, tool: string, status: number, started: number): void {
    this.logger.log({
      msg: 'mcp tool call',
      requestId,
      tool,
      workspaceId: principal.workspaceId,
      apiKeyId: principal.apiKeyId,
      status,
      ms: Date.now() - started,
    });
  }

  /**
   * The resources and prompts of the shared table (mcp-context.ts), served as the stdio package serves
   * them. A resource reads through its tool, so it costs what the call would (scope, rate limit).
   */
  private registerContext(server: Server, principal: McpPrincipal, requestId: string): void {
    server.setRequestHandler(ListResourcesRequestSchema, () => ({
      resources: MCP_RESOURCES.map(({ name, uri, title, description, mimeType }) => ({
        name,
        uri,
        title,
        description,
        mimeType,
      })),
    }));
    server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
      const resource = MCP_RESOURCES.find((r) => r.uri === request.params.uri);
      if (!resource) throw new McpError(ErrorCode.InvalidParams, `Unknown resource ${request.params.uri}`);
      const result = await this.callTool(principal, requestId, resource.tool, resource.args);
      if (result.isError) throw new McpError(ErrorCode.InternalError, (result.content[0] as { text: string }).text);
      return {
        contents: [{ uri: resource.uri, mimeType: resource.mimeType, text: JSON.stringify(result.structuredContent) }],
      };
    });
    server.setRequestHandler(ListPromptsRequestSchema, () => ({
      prompts: MCP_PROMPTS.map(({ name, title, description, arguments: args }) => ({
        name,
        title,
        description,
        arguments: args.map(({ name: n, description: d, required }) => ({ name: n, description: d, required })),
      })),
    }));
    server.setRequestHandler(GetPromptRequestSchema, (request) => {
      const prompt = MCP_PROMPTS.find((p) => p.name === request.params.name);
      if (!prompt) throw new McpError(ErrorCode.InvalidParams, `Unknown prompt ${request.params.name}`);
      let text: string;
      try {
        text = renderPrompt(prompt, request.params.arguments ?? {});
      } catch (err) {
        throw new McpError(ErrorCode.InvalidParams, (err as Error).message);
      }
      return { description: prompt.description, messages: [{ role: 'user', content: { type: 'text', text } }] };
    });
  }
}
