import { assertScope } from '../auth/scopes.format';
import type { McpScope } from './mcp-tools';

/**
 * Refuses a tool call outside the caller's scopes with the API's 403 `FORBIDDEN` naming the missing
 * scope: the check the REST guard runs for @RequiredScope() routes (auth/scopes.format.ts).
 */
export function requireScope(granted: readonly string[], scope: McpScope): void {
  assertScope({ scopes: granted }, scope);
}
