import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AppError } from '../common/errors';
import { MCP_TOOLS } from './mcp-tools';
import { requireScope } from './mcp-scopes';

const document = JSON.parse(readFileSync(join(__dirname, '..', '..', 'docs', 'openapi.json'), 'utf8')) as {
  paths: Record<string, Record<string, { 'x-required-scope'?: string }>>;
};

describe('the scopes of the MCP tools', () => {
  it('are the scopes of the REST routes they stand for', () => {
    for (const tool of MCP_TOOLS) {
      const op = document.paths[tool.operation.path][tool.operation.method.toLowerCase()];
      expect({ tool: tool.name, scope: tool.scope }).toEqual({ tool: tool.name, scope: op['x-required-scope'] });
    }
  });

  it('let * and the named scope through, and refuse others with FORBIDDEN naming the scope', () => {
    expect(() => requireScope({ scopes: ['*'] }, 'posts:write')).not.toThrow();
    expect(() => requireScope({ scopes: ['posts:read'] }, 'posts:read')).not.toThrow();
    const refusal = (credential: 'api_key' | 'access_token') => {
      try {
        requireScope({ scopes: ['posts:read'], credential }, 'posts:write');
      } catch (err) {
        return err;
      }
      return undefined;
    };
    expect(refusal('api_key')).toBeInstanceOf(AppError);
    expect(refusal('api_key')).toMatchObject({
      code: 'FORBIDDEN',
      message: expect.stringMatching(/^This API key lacks the scope posts:write /),
    });
    // An agent's access token is named as what it is.
    expect(refusal('access_token')).toMatchObject({
      code: 'FORBIDDEN',
      message: expect.stringMatching(/^This access token lacks the scope posts:write /),
    });
  });
});
