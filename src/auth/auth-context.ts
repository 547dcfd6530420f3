/**
 * The authenticated principal of a request: set on `request.auth` by the API key check
 * (ApiKeyGuard, inside the global RequestGuard) and read by @WorkspaceId(), @Auth() and the
 * idempotency and rate-limit steps. Absent on public routes.
 */
export interface AuthContext {
  workspaceId: string;
  apiKeyId: string;
  rateLimitPerMinute: number | null;
  rateLimitBurst: number | null;
  /** What the key may do (scopes.format.ts): `["*"]` for every scope. Read with the key, never looked up again. */
  scopes: readonly string[];
}

declare module 'fastify' {
  interface FastifyRequest {
    auth?: AuthContext;
  }
}
