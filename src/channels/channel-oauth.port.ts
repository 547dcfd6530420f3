/** An authorization started for `POST /api/channels/connect/{provider}`. */
export interface OAuthConnectStart {
  authorizationUrl: string;
  state: string;
  expiresAt: Date;
}

/**
 * What the OAuth connect route (`POST /api/channels/connect/{provider}`, ChannelsController) asks of the
 * OAuth flow: start an authorization for this workspace. Channels declares it; the composition root
 * (app.module.ts) binds oauth's OAuthService to it, so channels imports nothing of oauth (which creates
 * and refreshes channels through ChannelsService).
 */
export interface ChannelOAuth {
  start(workspaceId: string, provider: string, redirectUri?: string): Promise<OAuthConnectStart>;
}

export const CHANNEL_OAUTH = Symbol('CHANNEL_OAUTH');
