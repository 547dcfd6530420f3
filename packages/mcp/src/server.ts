import { randomUUID } from 'node:crypto';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
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
import { SocialPublishing, SocialPublishingError } from '@social-publishing/client';
import generated from './tools.generated.json';

/** One tool: what `tools/list` shows and the API call it makes (generated from the service's tool table). */
export interface PackagedTool {
  name: string;
  title: string;
  description: string;
  inputSchema: Record<string, unknown>;
  annotations: Record<string, unknown>;
  operation: { method: string; path: string };
  path: string[];
  query: string[];
  body: boolean;
  idempotent: boolean;
}

/** A resource: the answer of a read-only tool (generated from the service's table, src/mcp/mcp-context.ts). */
export interface PackagedResource {
  name: string;
  uri: string;
  title: string;
  description: string;
  mimeType: string;
  tool: string;
  args: Record<string, unknown>;
}

/** A prompt: a template whose `{{argument}}` places take the argument, or its fallback. */
export interface PackagedPrompt {
  name: string;
  title: string;
  description: string;
  arguments: Array<{ name: string; description: string; required: boolean; fallback?: string }>;
  template: string;
}

/** The tools, the same as the service's remote server at /mcp offers. */
export const TOOLS: readonly PackagedTool[] = generated.tools;
/** The resources and prompts, the same as the remote server's. */
export const RESOURCES: readonly PackagedResource[] = generated.resources;
export const PROMPTS: readonly PackagedPrompt[] = generated.prompts;

/** The prompt's text for these arguments (as the remote server renders it); a missing required argument throws. */
export function renderPrompt(prompt: PackagedPrompt, args: Record<string, string | undefined>): string {
  for (const a of prompt.arguments) {
    if (a.required && !args[a.name]) throw new Error(`The prompt ${prompt.name} needs the argument ${a.name}`);
  }
  return prompt.template.replace(/\{\{(\w+)\}\}/g, (_, name: string) => {
    const value = args[name];
    return value ? value : (prompt.arguments.find((a) => a.name === name)?.fallback ?? '');
  });
}

const IDEMPOTENCY_KEY_FIELD = 'idempotencyKey';

export interface ServerOptions {
  /** An API key of the workspace. */
  apiKey: string;
  /** The service's address, with or without the trailing `/api` (`https://social.example.com`). */
  baseUrl: string;
  /** A fetch implementation (default: the global `fetch`). */
  fetch?: (request: Request) => Promise<Response>;
  /** Act in this workspace of the key's organization (`X-Workspace-Id`; the key needs `workspaces:manage`). */
  workspaceId?: string;
}

/** The API base the client wants: the address ending with `/api`. */
export function apiBaseUrl(baseUrl: string): string {
  const base = baseUrl.replace(/\/+$/, '');
  return base.endsWith('/api') ? base : `${base}/api`;
}

/** A tool's arguments as the API call's path, query, body and idempotency key, and the unknown fields. */
function split(tool: PackagedTool, args: Record<string, unknown>) {
  const path: Record<string, unknown> = {};
  const query: Record<string, unknown> = {};
  const body: Record<string, unknown> = {};
  const unknown: string[] = [];
  let idempotencyKey: string | undefined;
  for (const [k, v] of Object.entries(args)) {
    if (k === IDEMPOTENCY_KEY_FIELD && tool.idempotent) idempotencyKey = String(v);
    else if (tool.path.includes(k)) path[k] = v;
    else if (tool.query.includes(k)) query[k] = v;
    else if (tool.body) body[k] = v;
    else unknown.push(k);
  }
  return { path, query, body: tool.body ? body : undefined, unknown, idempotencyKey };
}

function errorResult(
  body: { error: string; message: string; details?: unknown },
  meta?: Record<string, unknown>,
): CallToolResult {
  return {
    isError: true,
    content: [{ type: 'text', text: `${body.error}: ${body.message}` }],
    structuredContent: body,
    ...(meta ? { _meta: meta } : {}),
  };
}

/**
 * The stdio MCP server's protocol side: the tools of the service, each one API call through the
 * official client (its key, retries and rate-limit handling), answering the API's JSON as
 * `structuredContent` and as text, and the API's errors as tool errors; and the same resources
 * (each read through its tool) and prompts as the remote server.
 */
export function createServer(options: ServerOptions, version = '0.1.0'): Server {
  const api = new SocialPublishing({
    apiKey: options.apiKey,
    baseUrl: apiBaseUrl(options.baseUrl),
    fetch: options.fetch,
    ...(options.workspaceId ? { workspaceId: options.workspaceId } : {}),
  });
  // The low-level server: the tools' input schemas are JSON Schemas (from the API's OpenAPI document).
  const server = new Server(
    { name: 'social-publishing', title: 'Social Publishing Service', version },
    { capabilities: { tools: {}, resources: {}, prompts: {} }, instructions: generated.instructions },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: TOOLS.map(({ name, title, description, inputSchema, annotations }) => ({
      name,
      title,
      description,
      inputSchema: inputSchema as Tool['inputSchema'],
      annotations,
    })),
  }));
  server.setRequestHandler(CallToolRequestSchema, (request) =>
    callTool(request.params.name, request.params.arguments ?? {}),
  );
  server.setRequestHandler(ListResourcesRequestSchema, () => ({
    resources: RESOURCES.map(({ name, uri, title, description, mimeType }) => ({
      name,
      uri,
      title,
      description,
      mimeType,
    })),
  }));
  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    const resource = RESOURCES.find((r) => r.uri === request.params.uri);
    if (!resource) throw new McpError(ErrorCode.InvalidParams, `Unknown resource ${request.params.uri}`);
    const result = await callTool(resource.tool, resource.args);
    if (result.isError) throw new McpError(ErrorCode.InternalError, (result.content[0] as { text: string }).text);
    return {
      contents: [{ uri: resource.uri, mimeType: resource.mimeType, text: JSON.stringify(result.structuredContent) }],
    };
  });
  server.setRequestHandler(ListPromptsRequestSchema, () => ({
    prompts: PROMPTS.map(({ name, title, description, arguments: args }) => ({
      name,
      title,
      description,
      arguments: args.map(({ name: n, description: d, required }) => ({ name: n, description: d, required })),
    })),
  }));
  server.setRequestHandler(GetPromptRequestSchema, (request) => {
    const prompt = PROMPTS.find((p) => p.name === request.params.name);
    if (!prompt) throw new McpError(ErrorCode.InvalidParams, `Unknown prompt ${request.params.name}`);
    let text: string;
    try {
      text = renderPrompt(prompt, request.params.arguments ?? {});
    } catch (err) {
      throw new McpError(ErrorCode.InvalidParams, (err as Error).message);
    }
    return {
      description: prompt.description,
      messages: [{ role: 'user' as const, content: { type: 'text' as const, text } }],
    };
  });
  return server;

  /** One tool: its API call through the client, the API's JSON as the result, its errors as tool errors. */
  async function callTool(name: string, rawArgs: Record<string, unknown>): Promise<CallToolResult> {
    const tool = TOOLS.find((t) => t.name === name);
    if (!tool) return errorResult({ error: 'VALIDATION_ERROR', message: `Unknown tool ${name}` });
    const args = split(tool, rawArgs);
    if (args.unknown.length > 0) {
      const details = args.unknown.map((field) => ({ field, message: 'is not a known field' }));
      return errorResult({
        error: 'VALIDATION_ERROR',
        message: details.map((d) => `${d.field} ${d.message}`).join('; '),
        details,
      });
    }
    const idempotencyKey = tool.idempotent ? (args.idempotencyKey ?? randomUUID()) : undefined;
    const meta = idempotencyKey ? { idempotencyKey } : undefined;
    const result = await api.client.request({
      method: tool.operation.method as 'GET',
      url: tool.operation.path,
      path: args.path,
      query: args.query,
      ...(args.body ? { body: args.body } : {}),
      ...(idempotencyKey ? { headers: { 'Idempotency-Key': idempotencyKey } } : {}),
    });
    if (result.error !== undefined) {
      const error = result.error as unknown;
      if (error instanceof SocialPublishingError) {
        return errorResult(
          { error: error.code, message: error.message, ...(error.details ? { details: error.details } : {}) },
          meta,
        );
      }
      return errorResult(
        { error: 'NETWORK_ERROR', message: error instanceof Error ? error.message : String(error) },
        meta,
      );
    }
    // DELETE answers 204 without a body: said as the remote server says it.
    const data = (result.response.status === 204 ? { ...args.path, deleted: true } : result.data) as Record<
      string,
      unknown
    >;
    return {
      content: [{ type: 'text', text: JSON.stringify(data) }],
      structuredContent: data,
      ...(meta ? { _meta: meta } : {}),
    };
  }
}
