import { Injectable, Logger } from '@nestjs/common';
import type { Channel } from '../channels/channel.entity';
import { ChannelsService } from '../channels/channels.service';
import { CredentialsRevokedError, TransientProviderError } from '../providers/provider.errors';
import { OAuthApp, OAuthAppsService } from './oauth-apps.service';
import { OAuthGrantRefusedError, OAuthTokenClient } from './oauth-token.client';

/** What a run of the renewal of idle channels did. */
export interface RenewalStats {
  /** Channels whose token was in its renewal window. */
  due: number;
  renewed: number;
  /** Refused: the channel was disconnected. */
  revoked: number;
  /** Not renewed now (network unavailable, or refused while the token still works): next time. */
  failed: number;
}

/** Access tokens closer than this to expiry are refreshed before use (unless the plugin says otherwise). */
export const REFRESH_MARGIN_MS = 60_000;

const expiryOf = (credentials: Record<string, unknown>): number =>
  typeof credentials.expiresAt === 'string' ? Date.parse(credentials.expiresAt) : NaN;

/** The access token expires within `windowMs` (and its expiry is known). */
function expiresWithin(credentials: Record<string, unknown>, windowMs: number, now = Date.now()): boolean {
  const expiresAt = expiryOf(credentials);
  return Number.isFinite(expiresAt) && expiresAt - now < windowMs;
}

/**
 * A channel's credentials ready for a provider call: for OAuth networks, an access token about to
 * expire is refreshed first, under the channel's row lock, so concurrent publishes refresh once.
 * Networks with long-lived tokens refreshed by the token itself (Threads, Instagram) declare a wide
 * `refreshWindowMs`: the token is renewed weeks before it expires, and a transient failure then is
 * tried again at the next use rather than failing the call (docs/adr/0022).
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
   * Renews the tokens of idle channels of networks that renew their long-lived tokens themselves
   * (Threads, Instagram: a token unused for 60 days is lost), `batchSize` channels at a time; `stop`
   * ends the run between two. A refused renewal disconnects the channel as at a publish; one that
   * cannot run now is tried again at the next run or use.
   */
  async renewIdle(batchSize: number, stop: () => boolean = () => false): Promise<RenewalStats> {
    const stats: RenewalStats = { due: 0, renewed: 0, revoked: 0, failed: 0 };
    const providers = this.apps
      .all()
      .filter((app) => app.spec.refresh)
      .map((app) => app.plugin.id);
    let after: string | null = null;
    while (!stop()) {
      const channels = await this.channels.activeOfProviders(providers, after, batchSize);
      for (const channel of channels) {
        const app = this.apps.find(channel.provider);
        const before = this.channels.credentialsOf(channel);
        if (!app || !before || !expiresWithin(before, this.windowOf(app))) continue;
        stats.due++;
        try {
          const fresh = await this.open(channel);
          if (fresh && fresh.expiresAt !== before.expiresAt) stats.renewed++;
          else stats.failed++;
        } catch (err) {
          if (err instanceof CredentialsRevokedError) stats.revoked++;
          else stats.failed++;
        }
      }
      if (channels.length < batchSize) break;
      after = channels[channels.length - 1].id;
    }
    return stats;
  }

  /**
   * The credentials to call the provider with; null when the channel is disconnected. Throws
   * CredentialsRevokedError after disconnecting the channel when the network refuses the refresh,
   * TransientProviderError when the token endpoint is unavailable and the token is expiring.
   */
  async open(channel: Channel): Promise<Record<string, unknown> | null> {
    const credentials = channel.status === 'active' ? this.channels.credentialsOf(channel) : null;
    if (!credentials) return credentials;
    const app = this.apps.find(channel.provider);
    if (!app) return credentials; // an OAuth network switched off here: use the token while it lasts
    const window = this.windowOf(app);
    if (!expiresWithin(credentials, window)) return credentials;
    const revoked: { reason: string | null } = { reason: null };
    try {
      const fresh = await this.channels.refreshCredentials(channel.id, async (current) => {
        if (!expiresWithin(current, window)) return { kind: 'current' }; // another caller refreshed while we waited
        const refreshToken = typeof current.refreshToken === 'string' ? current.refreshToken : null;
        const accessToken = typeof current.accessToken === 'string' ? current.accessToken : '';
        if (!refreshToken && !app.spec.refresh) {
          revoked.reason = `${app.plugin.displayName} access token expired and no refresh token was issued`;
          return { kind: 'revoked' };
        }
        try {
          const tokens = await this.tokens.refresh(app, { accessToken, refreshToken });
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
          if (err instanceof OAuthGrantRefusedError && !expiresWithin(current, REFRESH_MARGIN_MS)) {
            // An early refresh refused while the token still works (too young to refresh, say): keep
            // using it; a revoked token shows on the network call, which disconnects the channel.
            this.logger.warn({
              msg: 'Early token refresh refused; using the current token',
              channelId: channel.id,
              error: err.error,
            });
            return { kind: 'current' };
          }
          if (err instanceof OAuthGrantRefusedError) {
            this.logger.warn({ msg: 'Token refresh refused; disconnecting', channelId: channel.id, error: err.error });
            revoked.reason = err.message;
            return { kind: 'revoked' };
          }
          if (err instanceof TransientProviderError) throw err;
          throw new TransientProviderError(`${app.plugin.displayName} token refresh failed: ${(err as Error).message}`);
        }
      });
      if (revoked.reason) throw new CredentialsRevokedError(revoked.reason);
      return fresh;
    } catch (err) {
      // An early refresh (long-lived tokens) that could not run now: the token still works, use it.
      if (err instanceof TransientProviderError && !expiresWithin(credentials, REFRESH_MARGIN_MS)) {
        this.logger.warn({ msg: 'Early token refresh failed; using the current token', channelId: channel.id });
        return credentials;
      }
      throw err;
    }
  }

  private windowOf(app: OAuthApp): number {
    return Math.max(app.spec.refreshWindowMs ?? REFRESH_MARGIN_MS, REFRESH_MARGIN_MS);
  }
}
