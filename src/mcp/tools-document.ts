import { MCP_PROMPTS, MCP_RESOURCES, type McpPromptSpec, type McpResourceSpec } from './mcp-context';
import { MCP_INSTRUCTIONS, MCP_TOOLS } from './mcp-tools';
import { describeTool, type OpenApiLike, type ToolDescription, toolInput } from './tool-schemas';

/** One tool as the stdio package (packages/mcp) receives it: what to list and which API call it is. */
export interface PackagedTool extends ToolDescription {
  operation: { method: string; path: string };
  path: string[];
  query: string[];
  body: boolean;
  idempotent: boolean;
}

/**
 * The tools of packages/mcp (its src/tools.generated.json), from the same table and the same OpenAPI
 * document as the remote server's, with the same resources and prompts (mcp-context.ts): `npm run mcp:generate` writes it, and a spec fails when the
 * committed file is stale.
 */
export function packagedTools(document: OpenApiLike): {
  instructions: string;
  tools: PackagedTool[];
  resources: readonly McpResourceSpec[];
  prompts: readonly McpPromptSpec[];
} {
  return {
    instructions: MCP_INSTRUCTIONS,
    resources: MCP_RESOURCES,
    prompts: MCP_PROMPTS,
    tools: MCP_TOOLS.map((spec) => {
      const input = toolInput(spec, document);
      return {
        ...describeTool(spec, input),
        operation: spec.operation,
        path: input.path,
        query: input.query,
        body: input.body,
        idempotent: input.idempotent,
      };
    }),
  };
}

/** The file's text: stable JSON, two-space indented, with a final newline. */
export function renderPackagedTools(document: OpenApiLike): string {
  return `${JSON.stringify(packagedTools(document), null, 2)}\n`;
}
