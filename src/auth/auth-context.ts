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
}

declare module 'fastify' {
  interface FastifyRequest {
    auth?: AuthContext;
  }
}
