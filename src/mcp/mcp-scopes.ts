import { assertScope, type Credential } from '../auth/scopes.format';
import type { McpScope } from './mcp-tools';

/**
 * Refuses a tool call outside the caller's scopes with the API's 403 `FORBIDDEN` naming the missing
 * scope: the check the REST guard runs for @RequiredScope() routes (auth/scopes.format.ts).
 */
export function requireScope(principal: { scopes: readonly string[]; credential?: Credential }, scope: McpScope): void {
  assertScope(principal, scope);
}
