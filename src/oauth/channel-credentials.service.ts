import { Injectable, Logger } from '@nestjs/common';
import type { Channel } from '../channels/channel.entity';
import { ChannelsService } from '../channels/channels.service';
import { CredentialsRevokedError, TransientProviderError } from '../providers/provider.errors';
import { OAuthAppsService } from './oauth-apps.service';
import { OAuthGrantRefusedError, OAuthTokenClient } from './oauth-token.client';

/** Access tokens closer than this to expiry are refreshed before use. */
export const REFRESH_MARGIN_MS = 60_000;

function expiresSoon(credentials: Record<string, unknown>, now = Date.now()): boolean {
  const expiresAt = typeof credentials.expiresAt === 'string' ? Date.parse(credentials.expiresAt) : NaN;
  return Number.isFinite(expiresAt) && expiresAt - now < REFRESH_MARGIN_MS;
}

/**
 * A channel's credentials ready for a provider call: for OAuth networks, an access token about to
 * expire is refreshed first, under the channel's row lock, so concurrent publishes refresh once.
 */
@Injectable()
export class ChannelCredentialsService {
  private readonly logger = new Logger(ChannelCredentialsService.name);

  constructor(
    private readonly channels: ChannelsService,
    private readonly apps: OAuthAppsService,
    private readonly tokens: OAuthTokenClient,
  ) {}

  /**
   * The credentials to call the provider with; null when the channel is disconnected. Throws
   * CredentialsRevokedError after disconnecting the channel when the network refuses the refresh
   * token, TransientProviderError when the token endpoint is unavailable.
   */
  async open(channel: Channel): Promise<Record<string, unknown> | null> {
    const credentials = channel.status === 'active' ? this.channels.credentialsOf(channel) : null;
    if (!credentials || !expiresSoon(credentials)) return credentials;
    const app = this.apps.find(channel.provider);
    if (!app) return credentials; // an OAuth network switched off here: use the token while it lasts
    const revoked: { reason: string | null } = { reason: null };
    const fresh = await this.channels.refreshCredentials(channel.id, async (current) => {
      if (!expiresSoon(current)) return { kind: 'current' }; // another caller refreshed while we waited
      const refreshToken = typeof current.refreshToken === 'string' ? current.refreshToken : null;
      if (!refreshToken) {
        revoked.reason = `${app.plugin.displayName} access token expired and no refresh token was issued`;
        return { kind: 'revoked' };
      }
      try {
        const tokens = await this.tokens.refresh(app, refreshToken);
        const shared = {
          accessToken: tokens.accessToken,
          // Networks that rotate refresh tokens invalidate the old one: store the new one now.
          refreshToken: tokens.refreshToken ?? refreshToken,
          expiresAt: tokens.expiresAt,
          scope: tokens.scope ?? current.scope ?? null,
        };
        // `shared` also goes to the channels connected by the same authorization (LinkedIn pages).
        return { kind: 'refreshed', credentials: { ...current, ...shared }, shared };
      } catch (err) {
        if (err instanceof OAuthGrantRefusedError) {
          this.logger.warn({ msg: 'Refresh token refused; disconnecting', channelId: channel.id, error: err.error });
          revoked.reason = err.message;
          return { kind: 'revoked' };
        }
        if (err instanceof TransientProviderError) throw err;
        throw new TransientProviderError(`${app.plugin.displayName} token refresh failed: ${(err as Error).message}`);
      }
    });
    if (revoked.reason) throw new CredentialsRevokedError(revoked.reason);
    return fresh;
  }
}
