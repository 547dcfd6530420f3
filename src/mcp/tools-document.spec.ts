import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MCP_TOOLS } from './mcp-tools';
import { packagedTools, renderPackagedTools } from './tools-document';
import type { OpenApiLike } from './tool-schemas';

const root = join(__dirname, '..', '..');
const document = JSON.parse(readFileSync(join(root, 'docs', 'openapi.json'), 'utf8')) as OpenApiLike;

describe('the MCP tools of packages/mcp', () => {
  it('are what the tool table and docs/openapi.json make (run `npm run mcp:generate` after `npm run openapi`)', () => {
    const committed = readFileSync(join(root, 'packages', 'mcp', 'src', 'tools.generated.json'), 'utf8');
    expect(committed).toBe(renderPackagedTools(document));
  });

  it('take the API field names, closed, with the referenced schemas inlined under $defs', () => {
    const { tools } = packagedTools(document);
    expect(tools.map((t) => t.name)).toEqual(MCP_TOOLS.map((t) => t.name));
    const create = tools.find((t) => t.name === 'create_post')!;
    expect(create).toMatchObject({ body: true, idempotent: true, path: [], query: [] });
    expect(create.inputSchema).toMatchObject({ type: 'object', additionalProperties: false });
    const text = JSON.stringify(create.inputSchema);
    expect(text).not.toContain('#/components/');
    for (const [, ref] of text.matchAll(/"#\/\$defs\/([^"]+)"/g)) {
      expect((create.inputSchema.$defs as Record<string, unknown>)[ref]).toBeDefined();
    }
    const update = tools.find((t) => t.name === 'update_post')!;
    expect(update).toMatchObject({ path: ['id'], body: true, idempotent: false });
    expect(update.inputSchema.required).toEqual(['id', 'content', 'channelIds']);
    const list = tools.find((t) => t.name === 'list_posts')!;
    expect(list.query).toEqual(expect.arrayContaining(['limit', 'cursor', 'status']));
  });
});
