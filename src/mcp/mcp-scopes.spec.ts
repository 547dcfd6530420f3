import { AppError } from '../common/errors';
import { MCP_TOOLS } from './mcp-tools';
import { requireScope } from './mcp-scopes';

describe('requireScope', () => {
  it('lets a principal without scopes of its own, or with *, call every tool', () => {
    for (const tool of MCP_TOOLS) {
      expect(() => requireScope(undefined, tool.scope)).not.toThrow();
      expect(() => requireScope(['*'], tool.scope)).not.toThrow();
    }
  });

  it('refuses a tool outside the granted scopes with FORBIDDEN naming the scope', () => {
    expect(() => requireScope(['posts:read'], 'posts:read')).not.toThrow();
    let thrown: unknown;
    try {
      requireScope(['posts:read'], 'posts:write');
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(AppError);
    expect(thrown).toMatchObject({ code: 'FORBIDDEN', message: 'This key lacks the scope posts:write' });
  });

  it('declares one scope per tool, read tools needing no write scope', () => {
    for (const tool of MCP_TOOLS) {
      if (tool.readOnly) expect(tool.scope).not.toMatch(/:write$|:publish$/);
      else expect(tool.scope).toMatch(/:write$/);
    }
  });
});
