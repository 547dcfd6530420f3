/**
 * What the OAuth callback asks of a hosted connect link (docs/adr/0055) when the authorization was
 * started from one. oauth declares it; the composition root (app.module.ts) binds connect-links'
 * service to it, so oauth imports nothing of connect-links (which starts authorizations through
 * OAuthService).
 */
export interface ConnectLinkGate {
  /**
   * The link's redirect URL while it may still connect; null once it is revoked, expired or gone.
   * Asked before the code exchange and again just before the channel is stored.
   */
  usableRedirect(linkId: string): Promise<string | null>;
}

export const CONNECT_LINK_GATE = Symbol('CONNECT_LINK_GATE');
