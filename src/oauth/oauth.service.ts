import { Inject, Injectable, Logger } from '@nestjs/common';
import { ConfigType } from '@nestjs/config';
import { InjectRepository } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { Repository } from 'typeorm';
import { ChannelsService } from '../channels/channels.service';
import { SecretBox } from '../common/crypto/secret-box';
import { AppError } from '../common/errors';
import { oauthConfig } from '../config';
import { ProviderError } from '../providers/provider.errors';
import type { ProviderId } from '../providers/provider.list';
import { ProviderRegistry } from '../providers/provider.registry';
import { OAuthApp, OAuthAppsService } from './oauth-apps.service';
import { OAuthState } from './oauth-state.entity';
import { OAuthGrantRefusedError, OAuthTokenClient } from './oauth-token.client';
import { codeChallengeS256, hashState, newCodeVerifier, newState } from './pkce';

/** Why a callback did not connect a channel; sent as `error` to the redirectUri or shown on the page. */
export type OAuthCallbackErrorCode =
  | 'invalid_state'
  | 'expired_state'
  | 'redirect_mismatch'
  | 'access_denied'
  | 'exchange_failed'
  | 'account_failed'
  | 'provider_disabled';

export class OAuthCallbackError extends Error {
  constructor(
    readonly code: OAuthCallbackErrorCode,
    message: string,
    /** Where to send the browser with the error; null when the state was not trustworthy. */
    readonly redirectUri: string | null = null,
  ) {
    super(message);
    this.name = 'OAuthCallbackError';
  }
}

export interface AuthorizationStart {
  authorizationUrl: string;
  state: string;
  expiresAt: Date;
}

export interface CallbackQuery {
  code?: string;
  state?: string;
  error?: string;
  redirectUri?: string;
}

/** The authorization-code flow with PKCE: start (state + URL), callback (exchange, channel). */
@Injectable()
export class OAuthService {
  private readonly logger = new Logger(OAuthService.name);

  constructor(
    @InjectRepository(OAuthState) private readonly states: Repository<OAuthState>,
    private readonly apps: OAuthAppsService,
    private readonly tokens: OAuthTokenClient,
    private readonly providers: ProviderRegistry,
    private readonly channels: ChannelsService,
    private readonly box: SecretBox,
    @Inject(oauthConfig.KEY) private readonly cfg: ConfigType<typeof oauthConfig>,
  ) {}

  async start(workspaceId: string, provider: string, redirectUri?: string): Promise<AuthorizationStart> {
    if (!this.providers.has(provider)) throw AppError.notFound('Provider');
    if (this.providers.plugin(provider).connectKind !== 'oauth') {
      throw AppError.validation(`${provider} connects with credentials: use POST /api/channels`, [
        { field: 'provider', message: 'does not connect by OAuth' },
      ]);
    }
    const app = this.apps.find(provider);
    if (!app) {
      throw AppError.validation(
        `${provider} is not enabled on this server: its client id and secret are not configured`,
        [{ field: 'provider', message: 'not enabled on this server' }],
      );
    }
    if (redirectUri !== undefined) this.checkRedirectUri(redirectUri);
    const { state, hash } = newState();
    const verifier = newCodeVerifier();
    const id = randomUUID();
    const expiresAt = new Date(Date.now() + this.cfg.stateTtlMs);
    await this.states.insert({
      id,
      stateHash: hash,
      workspaceId,
      provider,
      codeVerifier: this.box.seal(verifier, this.aad(id)),
      redirectUri: redirectUri ?? null,
      expiresAt,
      usedAt: null,
    });
    const url = new URL(app.spec.authorizeUrl(app.hosts));
    url.searchParams.set('response_type', 'code');
    url.searchParams.set('client_id', app.clientId);
    url.searchParams.set('redirect_uri', app.callbackUrl);
    url.searchParams.set('scope', app.spec.scopes.join(' '));
    url.searchParams.set('state', state);
    url.searchParams.set('code_challenge', codeChallengeS256(verifier));
    url.searchParams.set('code_challenge_method', 'S256');
    return { authorizationUrl: url.toString(), state, expiresAt };
  }

  /**
   * Consumes the state (once, atomically), exchanges the code and creates or reactivates the
   * channel in the state's workspace. Throws OAuthCallbackError; nothing is created on failure.
   */
  async callback(
    provider: string,
    query: CallbackQuery,
  ): Promise<{ channelId: string; created: boolean; redirectUri: string | null }> {
    if (!query.state) throw new OAuthCallbackError('invalid_state', 'The callback carries no state.');
    const rows: unknown = await this.states.query(
      `UPDATE oauth_states SET used_at = now()
        WHERE state_hash = $1 AND used_at IS NULL
        RETURNING id, workspace_id AS "workspaceId", provider, code_verifier AS "codeVerifier",
                  redirect_uri AS "redirectUri", expires_at AS "expiresAt"`,
      [hashState(query.state)],
    );
    const row = (
      rows as [
        Array<Pick<OAuthState, 'id' | 'workspaceId' | 'provider' | 'codeVerifier' | 'redirectUri' | 'expiresAt'>>,
        number,
      ]
    )[0]?.[0];
    if (!row || row.provider !== provider) {
      throw new OAuthCallbackError(
        'invalid_state',
        'This authorization is unknown or was already used. Start the connection again.',
      );
    }
    if (query.redirectUri !== undefined && query.redirectUri !== row.redirectUri) {
      throw new OAuthCallbackError(
        'redirect_mismatch',
        'The redirect address does not match the one this authorization was started with.',
      );
    }
    if (new Date(row.expiresAt).getTime() <= Date.now()) {
      throw new OAuthCallbackError(
        'expired_state',
        'This authorization expired. Start the connection again.',
        row.redirectUri,
      );
    }
    if (query.error || !query.code) {
      const code = query.error === 'access_denied' || !query.code ? 'access_denied' : 'exchange_failed';
      throw new OAuthCallbackError(code, 'The network did not grant access.', row.redirectUri);
    }
    const app = this.apps.find(provider);
    if (!app)
      throw new OAuthCallbackError('provider_disabled', `${provider} is not enabled on this server.`, row.redirectUri);
    const verifier = this.box.open(row.codeVerifier, this.aad(row.id));
    const account = await this.readAccount(app, query.code, verifier, row.redirectUri);
    const { channel, created } = await this.channels.saveAccount(row.workspaceId, provider as ProviderId, account);
    return { channelId: channel.id, created, redirectUri: row.redirectUri };
  }

  private async readAccount(app: OAuthApp, code: string, verifier: string, redirectUri: string | null) {
    let tokens;
    try {
      tokens = await this.tokens.exchangeCode(app, code, verifier);
    } catch (err) {
      this.logger.warn({ msg: 'OAuth code exchange failed', provider: app.plugin.id, err: (err as Error).message });
      const message =
        err instanceof OAuthGrantRefusedError ? err.message : `${app.plugin.displayName} could not be reached.`;
      throw new OAuthCallbackError('exchange_failed', message, redirectUri);
    }
    try {
      return await this.providers.get(app.plugin.id).connect({
        accessToken: tokens.accessToken,
        refreshToken: tokens.refreshToken,
        expiresAt: tokens.expiresAt,
        scope: tokens.scope,
        apiBaseUrl: app.hosts.api,
      });
    } catch (err) {
      if (!(err instanceof ProviderError)) throw err;
      throw new OAuthCallbackError(
        'account_failed',
        `${app.plugin.displayName} did not return the account: ${err.message}`,
        redirectUri,
      );
    }
  }

  /** An absolute http(s) URL on an allowed origin, without credentials or fragment. */
  private checkRedirectUri(value: string): void {
    let url: URL | null = null;
    try {
      url = new URL(value);
    } catch {
      url = null;
    }
    const ok =
      url !== null &&
      (url.protocol === 'https:' || url.protocol === 'http:') &&
      !url.username &&
      !url.password &&
      !url.hash &&
      this.cfg.redirectOrigins.includes(url.origin);
    if (!ok) {
      throw AppError.validation('redirectUri must be an http(s) URL on an allowed origin (OAUTH_REDIRECT_ORIGINS)', [
        { field: 'redirectUri', message: 'not an allowed redirect address' },
      ]);
    }
  }

  private aad(stateId: string): string {
    return `oauth-state:${stateId}`;
  }
}
