import { readFileSync, writeFileSync } from 'node:fs';
import { renderPackagedTools } from './mcp/tools-document';
import type { OpenApiLike } from './mcp/tool-schemas';

/**
 * `npm run mcp:generate`: writes the MCP tools of the stdio package (packages/mcp/src/tools.generated.json)
 * from the tool table (src/mcp/mcp-tools.ts) and the committed OpenAPI document. Run it after
 * `npm run openapi`; src/mcp/tools-document.spec.ts fails while the committed file is stale.
 */
const source = process.argv[2] ?? 'docs/openapi.json';
const target = process.argv[3] ?? 'packages/mcp/src/tools.generated.json';
writeFileSync(target, renderPackagedTools(JSON.parse(readFileSync(source, 'utf8')) as OpenApiLike));
process.stderr.write(`Wrote ${target}\n`);
