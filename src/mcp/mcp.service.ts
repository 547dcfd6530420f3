import { randomUUID } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ListToolsRequestSchema,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { revokedKeyMarker } from '../auth/api-key.format';
import { actorOfKey } from '../auth/scopes.format';
import { AuthService } from '../auth/auth.service';
import { AppError, sendError, toErrorResponse } from '../common/errors';
import { IdempotencyService } from '../idempotency/idempotency.service';
import { ApiKeyThrottlerGuard } from '../rate-limit/api-key-throttler.guard';
import { version } from '../../package.json';
import { McpToolHandlers, type ToolAnswer } from './mcp-tool-handlers';
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
        void reply.header('WWW-Authenticate', `Bearer resource_metadata="${this.resourceMetadataUrl(req)}"`);
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

  /** An MCP server bound to one caller: its tools, resources and prompts. */
  private createServer(principal: McpPrincipal, requestId: string): McpServer {
    const server = new McpServer(
      { name: 'social-publishing', title: 'Social Publishing Service', version },
      { capabilities: { tools: {}, resources: {}, prompts: {} }, instructions: MCP_INSTRUCTIONS },
    );
    // The tools' schemas are JSON Schemas from the OpenAPI document, not zod: the low-level handlers.
    server.server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: this.tools.map((t) => t.tool) }));
    server.server.setRequestHandler(CallToolRequestSchema, (request) =>
      this.callTool(principal, requestId, request.params.name, request.params.arguments ?? {}),
    );
    this.registerResources(server, principal, requestId);
    this.registerPrompts(server);
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
    requireScope(principal.scopes, scope);
    const taken = await this.throttle.take({
      id: principal.apiKeyId,
      perMinute: principal.rateLimitPerMinute,
      burst: principal.rateLimitBurst,
      revokedMarker: revokedKeyMarker(principal.apiKeyId),
    });
    if (taken === 'revoked') throw new AppError('UNAUTHORIZED', 'Invalid API key');
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

  /** Read-only context an agent can attach: the channels and the networks' limits. */
  private registerResources(server: McpServer, principal: McpPrincipal, requestId: string): void {
    const read = async (uri: URL, tool: 'list_channels' | 'list_providers', args: Record<string, unknown>) => {
      const result = await this.callTool(principal, requestId, tool, args);
      if (result.isError) throw new Error(String((result.content[0] as { text: string }).text));
      return {
        contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(result.structuredContent) }],
      };
    };
    server.registerResource(
      'channels',
      'channels://list',
      {
        title: 'Connected channels',
        description: 'The connected channels of the workspace (first 100) with their ids, status and limits.',
        mimeType: 'application/json',
      },
      (uri) => read(uri, 'list_channels', { limit: 100 }),
    );
    server.registerResource(
      'providers',
      'providers://limits',
      {
        title: 'Networks and their limits',
        description:
          'Every network this server can post to, with its limits (characters, media, video) and options schema.',
        mimeType: 'application/json',
      },
      (uri) => read(uri, 'list_providers', {}),
    );
  }

  private registerPrompts(server: McpServer): void {
    server.registerPrompt(
      'draft_post',
      {
        title: 'Draft a post for my channels',
        description: 'Writes a post within every chosen network’s limits, validates it and saves it as a draft.',
        argsSchema: {
          brief: z.string().describe('What the post is about'),
          channels: z.string().optional().describe('Channel names or ids to post to (default: ask me)'),
        },
      },
      ({ brief, channels }) => ({
        messages: [
          {
            role: 'user',
            content: {
              type: 'text',
              text:
                `Draft a social media post about: ${brief}\n` +
                `Channels: ${channels ?? 'list them with list_channels and ask me which to use'}.\n` +
                'Read the limits of each channel (list_channels, `limits`) and keep within the strictest one, or use ' +
                'per-channel `targets` overrides. Call validate_post and fix every problem it names, then create_post ' +
                'without scheduledAt (a draft) with an idempotencyKey, and show me the result.',
            },
          },
        ],
      }),
    );
    server.registerPrompt(
      'schedule_week',
      {
        title: 'Plan a week of posts',
        description: 'Plans several posts across the coming week, validated and queued into the posting slots.',
        argsSchema: { theme: z.string().describe('The theme or campaign of the week') },
      },
      ({ theme }) => ({
        messages: [
          {
            role: 'user',
            content: {
              type: 'text',
              text:
                `Plan five posts for the coming week on: ${theme}.\n` +
                'List my channels, respect each network’s limits, validate each post with validate_post, then ' +
                'create each with create_post and `queue: true` (the next free posting slot) or a `scheduledAt`, ' +
                'each with its own idempotencyKey. Summarise what was scheduled (or is pending approval).',
            },
          },
        ],
      }),
    );
  }
}
