/**
 * What authenticated a request: an API key, or an OAuth access token of a remote agent, which stands
 * for its grant's key (docs/adr/0043) and is named in refusals so its developer can tell which failed.
 */
export type Credential = 'api_key' | 'access_token';

/**
 * Who a request speaks for, as recorded on what it creates (a post's `createdBy`): an API key (its
 * name), the OAuth client of an access token (its client name), or a console user (their email).
 */
export interface Identity {
  kind: 'api_key' | 'oauth_client' | 'user';
  id: string;
  name: string;
}

/**
 * The authenticated principal of a request: set on `request.auth` by the API key check
 * (ApiKeyGuard, inside the global RequestGuard) and read by @WorkspaceId(), @Auth() and the
 * idempotency and rate-limit steps. Absent on public routes.
 */
export interface AuthContext {
  /**
   * The workspace the request acts in: the key's own, or the one named by `X-Workspace-Id` (a workspace
   * of the key's organization, for a key holding `workspaces:manage`; docs/adr/0052).
   */
  workspaceId: string;
  /** The organization of the key's workspace (and so of the acting one). */
  organizationId: string;
  /** Set when the request acts in another workspace than the key's own (X-Workspace-Id): the key's own. */
  keyWorkspaceId?: string;
  apiKeyId: string;
  rateLimitPerMinute: number | null;
  rateLimitBurst: number | null;
  /** What the key may do (scopes.format.ts): `["*"]` for every scope. Read with the key, never looked up again. */
  scopes: readonly string[];
  /** What was presented: the refusals name it ("This access token lacks the scope ..."). */
  credential: Credential;
  /** Who the request speaks for: the key, or the OAuth client of an access token. */
  identity?: Identity;
}

declare module 'fastify' {
  interface FastifyRequest {
    auth?: AuthContext;
  }
}
