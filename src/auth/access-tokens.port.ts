/**
 * What the key lookup asks about an OAuth access token (docs/adr/0043): which key it stands for and
 * until when. auth owns the question; the OAuth authorization server (oauth-server/) answers it, bound
 * by the composition root (app.module.ts), so auth imports nothing of it.
 */
export const ACCESS_TOKENS = Symbol('ACCESS_TOKENS');

export interface AccessTokenResolver {
  /**
   * The unexpired access token with this hash (hashApiKey): its grant's key, its expiry, and whether its
   * grant was revoked (the refusal says so); null when unknown or expired.
   */
  resolveAccessToken(tokenHash: string): Promise<ResolvedAccessToken | null>;
}

export interface ResolvedAccessToken {
  apiKeyId: string;
  expiresAt: Date;
  revoked: boolean;
  /** The OAuth client the token was issued to (a post's `createdBy` names it). */
  client?: { id: string; name: string };
}
