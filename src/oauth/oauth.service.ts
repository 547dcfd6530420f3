import { Inject, Injectable, Logger } from '@nestjs/common';
import { ConfigType } from '@nestjs/config';
import { randomUUID } from 'node:crypto';
import type { Channel } from '../channels/channel.entity';
import { ChannelsService } from '../channels/channels.service';
import { SecretBox } from '../common/crypto/secret-box';
import { AppError } from '../common/errors';
import { isUuid } from '../common/validators';
import { oauthConfig } from '../config';
import { Transactions } from '../database/transactions';
import { ProviderError } from '../providers/provider.errors';
import type { ProviderId } from '../providers/provider.list';
import { ProviderRegistry } from '../providers/provider.registry';
import type { AccountKind, ConnectedAccount } from '../providers/social-provider.interface';
import { CONNECT_LINK_GATE, ConnectLinkGate } from './connect-link-gate.port';
import { OAuthApp, OAuthAppsService } from './oauth-apps.service';
import { OAuthConnection } from './oauth-connection.entity';
import { OAuthStore } from './oauth.store';
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
  | 'provider_disabled'
  /** The connect link the authorization started from was revoked or expired meanwhile (nothing connected). */
  | 'link_gone';

export class OAuthCallbackError extends Error {
  constructor(
    readonly code: OAuthCallbackErrorCode,
    message: string,
    /** Where to send the browser with the error; null when the state was not trustworthy. */
    readonly redirectUri: string | null = null,
    /** The connect link the authorization was started from, if any. */
    readonly connectLinkId: string | null = null,
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

/** One account an authorization reaches, as listed for the choice (no credentials). */
export interface ConnectionTarget {
  /** The account's id on the network (LinkedIn: member or organization URN). */
  id: string;
  kind: AccountKind;
  name: string;
  handle: string;
  avatarUrl: string | null;
  profileUrl: string | null;
  /** The workspace's channel of this account, if it has one (choosing it reactivates it). */
  channelId: string | null;
}

/** An authorization waiting for the choice of targets. */
export interface PendingConnection {
  id: string;
  provider: string;
  targets: ConnectionTarget[];
  redirectUri: string | null;
  expiresAt: Date;
}

/** How a callback ended: one channel, or several accounts to choose from. */
export type CallbackResult =
  | {
      kind: 'channel';
      channelId: string;
      created: boolean;
      redirectUri: string | null;
      /** Set when the authorization was started from a connect link (redirectUri is then the link's). */
      connectLinkId: string | null;
    }
  | { kind: 'choose'; connection: PendingConnection; redirectUri: string | null; connectLinkId: string | null };

export interface PurgeStats {
  states: number;
  connections: number;
}

/**
 * The authorization-code flow with PKCE: start (state + URL), callback (exchange, channel), and the
 * choice of targets when one authorization reaches several accounts (docs/adr/0018).
 */
@Injectable()
export class OAuthService {
  private readonly logger = new Logger(OAuthService.name);

  constructor(
    private readonly store: OAuthStore,
    private readonly transactions: Transactions,
    private readonly apps: OAuthAppsService,
    private readonly tokens: OAuthTokenClient,
    private readonly providers: ProviderRegistry,
    private readonly channels: ChannelsService,
    private readonly box: SecretBox,
    @Inject(oauthConfig.KEY) private readonly cfg: ConfigType<typeof oauthConfig>,
    @Inject(CONNECT_LINK_GATE) private readonly links: ConnectLinkGate,
  ) {}

  /**
   * Starts an authorization. `redirectUri` must be on an allowed origin, unless `trustedRedirect`
   * says the service built it itself (the console's own return page) or took it from a connect link
   * (`connectLinkId`: the link's redirect URL, checked when the link was made).
   */
  async start(
    workspaceId: string,
    provider: string,
    redirectUri?: string,
    options: { trustedRedirect?: boolean; connectLinkId?: string } = {},
  ): Promise<AuthorizationStart> {
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
    if (redirectUri !== undefined && !options.trustedRedirect) this.checkRedirectUri(redirectUri);
    const { state, hash } = newState();
    const verifier = newCodeVerifier();
    const id = randomUUID();
    const expiresAt = new Date(Date.now() + this.cfg.stateTtlMs);
    await this.store.insertState({
      id,
      stateHash: hash,
      workspaceId,
      provider,
      codeVerifier: this.box.seal(verifier, this.aad(id)),
      redirectUri: redirectUri ?? null,
      expiresAt,
      usedAt: null,
      connectLinkId: options.connectLinkId ?? null,
    });
    const url = new URL(app.spec.authorizeUrl(app.hosts));
    url.searchParams.set('response_type', 'code');
    url.searchParams.set(app.spec.clientIdParameter ?? 'client_id', app.clientId);
    url.searchParams.set('redirect_uri', app.callbackUrl);
    url.searchParams.set('scope', app.scopes.join(app.spec.scopeSeparator ?? ' '));
    url.searchParams.set('state', state);
    url.searchParams.set('code_challenge', codeChallengeS256(verifier));
    url.searchParams.set('code_challenge_method', 'S256');
    for (const [name, value] of Object.entries(app.spec.authorizeParams ?? {})) url.searchParams.set(name, value);
    return { authorizationUrl: url.toString(), state, expiresAt };
  }

  /**
   * Consumes the state (once, atomically), exchanges the code and reads the accounts the tokens
   * reach. One account: creates or reactivates its channel in the state's workspace. Several: stores
   * them as a pending connection of that workspace for the caller to choose from. Throws
   * OAuthCallbackError; nothing is created on failure.
   */
  async callback(provider: string, query: CallbackQuery): Promise<CallbackResult> {
    if (!query.state) throw new OAuthCallbackError('invalid_state', 'The callback carries no state.');
    const row = await this.store.consumeState(hashState(query.state));
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
    const linkId = row.connectLinkId;
    const fail = (code: OAuthCallbackErrorCode, message: string) =>
      new OAuthCallbackError(code, message, row.redirectUri, linkId);
    await this.checkLink(linkId);
    if (new Date(row.expiresAt).getTime() <= Date.now()) {
      throw fail('expired_state', 'This authorization expired. Start the connection again.');
    }
    if (query.error || !query.code) {
      const code = query.error === 'access_denied' || !query.code ? 'access_denied' : 'exchange_failed';
      throw fail(code, 'The network did not grant access.');
    }
    const app = this.apps.find(provider);
    if (!app) throw fail('provider_disabled', `${provider} is not enabled on this server.`);
    const verifier = this.box.open(row.codeVerifier, this.aad(row.id));
    const accounts = await this.readAccounts(app, query.code, verifier, row.redirectUri, linkId);
    await this.checkLink(linkId); // revoked while the person was on the consent page: connect nothing
    if (accounts.length === 1) {
      const { channel, created } = await this.channels.saveAccount(
        row.workspaceId,
        provider as ProviderId,
        accounts[0],
      );
      return { kind: 'channel', channelId: channel.id, created, redirectUri: row.redirectUri, connectLinkId: linkId };
    }
    const id = randomUUID();
    const expiresAt = new Date(Date.now() + this.cfg.connectionTtlMs);
    await this.store.insertConnection({
      id,
      workspaceId: row.workspaceId,
      provider,
      targets: this.box.sealJson(accounts, this.connectionAad(row.workspaceId, id)),
      redirectUri: row.redirectUri,
      expiresAt,
      usedAt: null,
    });
    const connection: PendingConnection = {
      id,
      provider,
      targets: await this.summaries(row.workspaceId, provider, accounts),
      redirectUri: row.redirectUri,
      expiresAt,
    };
    return { kind: 'choose', connection, redirectUri: row.redirectUri, connectLinkId: linkId };
  }

  /** A pending connection of the workspace. 404 when unknown here; 409 once used or expired. */
  async getConnection(workspaceId: string, id: string): Promise<PendingConnection> {
    const row = isUuid(id) ? await this.store.findConnection(workspaceId, id) : null;
    if (!row) throw AppError.notFound('Connection');
    this.checkUsable(row);
    const accounts = this.openTargets(row);
    return {
      id: row.id,
      provider: row.provider,
      targets: await this.summaries(workspaceId, row.provider, accounts),
      redirectUri: row.redirectUri,
      expiresAt: row.expiresAt,
    };
  }

  /**
   * Creates (or reactivates) one channel per chosen target of a pending connection, in one
   * transaction that also consumes the connection: they share the authorization's tokens
   * (credentials group = the connection id). Unknown target ids are a 400 and consume nothing.
   */
  async chooseTargets(
    workspaceId: string,
    id: string,
    targetIds: string[],
  ): Promise<Array<{ channel: Channel; created: boolean }>> {
    if (!isUuid(id)) throw AppError.notFound('Connection');
    const wanted = [...new Set(targetIds)];
    if (wanted.length === 0) {
      throw AppError.validation('targetIds: choose at least one target', [
        { field: 'targetIds', message: 'choose at least one target' },
      ]);
    }
    const choose = () =>
      this.transactions.run(async (em) => {
        const row = await this.store.lockConnection(em, workspaceId, id);
        if (!row) throw AppError.notFound('Connection');
        this.checkUsable(row);
        const accounts = this.openTargets(row);
        const chosen: ConnectedAccount[] = [];
        for (const targetId of wanted) {
          const account = accounts.find((a) => a.externalId === targetId);
          if (!account) {
            throw AppError.validation(`targetIds: ${targetId} is not a target of this connection`, [
              { field: 'targetIds', message: `unknown target ${targetId}` },
            ]);
          }
          chosen.push(account);
        }
        const saved = await this.channels.saveAccountsInTransaction(
          em,
          workspaceId,
          row.provider as ProviderId,
          chosen,
          row.id,
        );
        await this.store.markConnectionUsed(em, row.id);
        return saved;
      });
    try {
      return await choose();
    } catch (err) {
      const code = (err as { code?: string; driverError?: { code?: string } }).code;
      if (code === '23505' || (err as { driverError?: { code?: string } }).driverError?.code === '23505') {
        return choose(); // another connect of one of these accounts won a race: update it now
      }
      throw err;
    }
  }

  /**
   * Deletes expired authorizations: states (used or not) and pending connections. A state past its
   * expiry is refused anyway, so deleting it changes nothing for a callback. In batches; `stop`
   * ends the run between two.
   */
  async purgeExpired(batchSize: number, stop: () => boolean = () => false): Promise<PurgeStats> {
    return this.store.deleteExpired(batchSize, stop);
  }

  /** Refuses the callback of an authorization started from a link that was revoked or expired since. */
  private async checkLink(linkId: string | null): Promise<void> {
    if (linkId && (await this.links.usableRedirect(linkId)) === null) {
      throw new OAuthCallbackError('link_gone', 'This connect link was revoked or has expired.', null, linkId);
    }
  }

  private checkUsable(row: OAuthConnection): void {
    if (row.usedAt) {
      throw AppError.conflict('This connection was already used to create channels. Start a new connection.');
    }
    if (row.expiresAt.getTime() <= Date.now()) {
      throw AppError.conflict('This connection expired. Start the connection again.');
    }
  }

  private openTargets(row: OAuthConnection): ConnectedAccount[] {
    return this.box.openJson<ConnectedAccount[]>(row.targets, this.connectionAad(row.workspaceId, row.id));
  }

  private async summaries(
    workspaceId: string,
    provider: string,
    accounts: ConnectedAccount[],
  ): Promise<ConnectionTarget[]> {
    const existing = await this.channels.findByExternalIds(
      workspaceId,
      provider as ProviderId,
      accounts.map((a) => a.externalId),
    );
    return accounts.map((a) => ({
      id: a.externalId,
      kind: a.kind ?? 'personal',
      name: a.name,
      handle: a.handle,
      avatarUrl: a.avatarUrl,
      profileUrl: a.profileUrl,
      channelId: existing.get(a.externalId)?.id ?? null,
    }));
  }

  /** Exchanges the code, then reads every account the tokens reach (one for most networks). */
  private async readAccounts(
    app: OAuthApp,
    code: string,
    verifier: string,
    redirectUri: string | null,
    linkId: string | null,
  ): Promise<ConnectedAccount[]> {
    let tokens;
    try {
      tokens = await this.tokens.exchangeCode(app, code, verifier);
    } catch (err) {
      this.logger.warn({ msg: 'OAuth code exchange failed', provider: app.plugin.id, err: (err as Error).message });
      const message =
        err instanceof OAuthGrantRefusedError ? err.message : `${app.plugin.displayName} could not be reached.`;
      throw new OAuthCallbackError('exchange_failed', message, redirectUri, linkId);
    }
    const credentials = {
      accessToken: tokens.accessToken,
      refreshToken: tokens.refreshToken,
      expiresAt: tokens.expiresAt,
      scope: tokens.scope,
      apiBaseUrl: app.hosts.api,
    };
    const adapter = this.providers.get(app.plugin.id);
    try {
      const accounts = adapter.connectTargets
        ? await adapter.connectTargets(credentials)
        : [await adapter.connect(credentials)];
      if (accounts.length === 0)
        throw new OAuthCallbackError('account_failed', 'No account was returned.', redirectUri, linkId);
      return accounts;
    } catch (err) {
      if (!(err instanceof ProviderError)) throw err;
      throw new OAuthCallbackError(
        'account_failed',
        `${app.plugin.displayName} did not return the account: ${err.message}`,
        redirectUri,
        linkId,
      );
    }
  }

  /** An absolute http(s) URL on an allowed origin, without credentials or fragment. */
  private checkRedirectUri(value: string): void {
    let url: URL | null;
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

  private connectionAad(workspaceId: string, connectionId: string): string {
    return `oauth-connection:${workspaceId}:${connectionId}`;
  }
}
