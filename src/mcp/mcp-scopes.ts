import { AppError } from '../common/errors';
import type { McpScope } from './mcp-tools';

/** Every scope: what a key created without `scopes` holds. */
export const ALL_SCOPES = '*';

/**
 * Refuses a call outside the caller's scopes with the API's 403 `FORBIDDEN`, naming the missing
 * scope. `granted` absent means a principal without scopes of its own (every key until keys carry
 * scopes): everything is allowed, as on the REST API.
 */
export function requireScope(granted: readonly string[] | undefined, scope: McpScope): void {
  if (!granted || granted.includes(ALL_SCOPES) || granted.includes(scope)) return;
  throw new AppError('FORBIDDEN', `This key lacks the scope ${scope}`);
}
