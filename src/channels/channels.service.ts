import { Injectable, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import { SecretBox } from '../common/crypto/secret-box';
import { AppError } from '../common/errors';
import { SsrfBlockedError } from '../common/http/outbound-http';
import { Page } from '../common/pagination/pagination';
import { EventsService } from '../events/events.service';
import { ProviderError } from '../providers/provider.errors';
import { ProviderRegistry } from '../providers/provider.registry';
import type { ProviderId } from '../providers/provider.list';
import { ConnectedAccount } from '../providers/social-provider.interface';
import { Channel, ChannelStatus, DisconnectReason } from './channel.entity';
import { ChannelDto } from './dto/channel.dto';
import { ChannelProfile, ChannelsStore } from './channels.store';
import { CredentialsCache } from './credentials-cache';
import { isUuid } from '../common/validators';
import { Transactions } from '../database/transactions';

/**
 * How long the revocation of one channel's authorization at its network may take (a disconnect or an
 * erasure) before it goes on without it: the outbound client's own request budget, never longer.
 */
export const REVOKE_TIMEOUT_MS = 10_000;

/**
 * What a refresh under the channel lock decided. `shared`: the fields (tokens) to copy into the
 * channels sharing this channel's authorization (same `credentialsGroup`).
 */
export type CredentialsRefreshOutcome =
  | { kind: 'current' }
  | { kind: 'refreshed'; credentials: Record<string, unknown>; shared?: Record<string, unknown> }
  | { kind: 'revoked' };
export type CredentialsRefresh = (current: Record<string, unknown>) => Promise<CredentialsRefreshOutcome>;

/** Where the network's refusal of a channel's credentials was found. */
export type DisconnectSource = 'publish' | 'analytics' | 'token_refresh';

/** Connected accounts: connect (verified by the provider), list, read, disconnect. */
@Injectable()
export class ChannelsService {
  private readonly logger = new Logger('Channels');
  /** Opened credentials, per channel and stored value. */
  private readonly opened = new CredentialsCache();

  constructor(
    private readonly channels: ChannelsStore,
    private readonly transactions: Transactions,
    private readonly providers: ProviderRegistry,
    private readonly box: SecretBox,
    private readonly events: EventsService,
  ) {}

  /**
   * Verifies the credentials with the provider and stores the channel, or reactivates the
   * workspace's existing channel for the same account. `created` tells which.
   */
  async connect(workspaceId: string, provider: ProviderId, credentials: Record<string, unknown>) {
    if (this.providers.plugin(provider).connectKind === 'oauth') {
      throw AppError.validation(`${provider} connects by OAuth: use POST /api/channels/connect/${provider}`, [
        { field: 'provider', message: 'connects by OAuth' },
      ]);
    }
    this.validateCredentials(provider, credentials);
    let account: ConnectedAccount;
    try {
      account = await this.providers.get(provider).connect(credentials);
    } catch (err) {
      if (err instanceof ProviderError || err instanceof SsrfBlockedError) {
        throw AppError.validation(`${provider} refused the connection: ${err.message}`, [
          { field: 'credentials', message: err.message },
        ]);
      }
      throw err;
    }
    return this.saveAccount(workspaceId, provider, account);
  }

  /**
   * Stores a verified account as a channel, or reactivates the workspace's existing channel for the
   * same account (the OAuth callback calls this after the token exchange). `created` tells which.
   */
  async saveAccount(workspaceId: string, provider: ProviderId, account: ConnectedAccount) {
    const save = () => this.transactions.run((em) => this.upsert(em, workspaceId, provider, account, null));
    try {
      return await save();
    } catch (err) {
      if (isUniqueViolation(err)) return save(); // lost a race with another connect of the account
      throw err;
    }
  }

  /**
   * Stores accounts reached by one authorization (a LinkedIn member and their pages) in the caller's
   * transaction, each as a new or reactivated channel, all in `credentialsGroup`: they share the
   * authorization's tokens, so a refresh of one updates them all (see refreshCredentials).
   */
  async saveAccountsInTransaction(
    em: EntityManager,
    workspaceId: string,
    provider: ProviderId,
    accounts: ConnectedAccount[],
    credentialsGroup: string,
  ): Promise<Array<{ channel: Channel; created: boolean }>> {
    const saved: Array<{ channel: Channel; created: boolean }> = [];
    for (const account of accounts) {
      saved.push(await this.upsert(em, workspaceId, provider, account, credentialsGroup));
    }
    return saved;
  }

  /** The workspace's channels of these accounts of a provider, keyed by external id. */
  async findByExternalIds(
    workspaceId: string,
    provider: ProviderId,
    externalIds: string[],
  ): Promise<Map<string, Channel>> {
    if (externalIds.length === 0) return new Map();
    const rows = await this.channels.findByExternalIds(workspaceId, provider, externalIds);
    return new Map(rows.map((c) => [c.externalId, c]));
  }

  /**
   * Runs `refresh` under the channel's row lock (SELECT ... FOR UPDATE), with the credentials as
   * committed now, and stores what it returns in the same transaction. Concurrent callers queue on
   * the lock and see the first one's tokens, so one expiry causes one refresh. Channels sharing the
   * authorization (same `credentialsGroup`) are locked too and receive `shared`; a revoked
   * authorization disconnects all of them. Returns the credentials to use, or null when the channel
   * is (now) disconnected.
   */
  async refreshCredentials(channelId: string, refresh: CredentialsRefresh): Promise<Record<string, unknown> | null> {
    let disconnected: Channel[] = [];
    const credentials = await this.transactions.run(async (em) => {
      disconnected = [];
      // The channel and its group, locked (in id order: two members refreshing at once cannot deadlock).
      const locked = await this.channels.lockWithGroup(em, channelId);
      const channel = locked.find((c) => c.id === channelId);
      if (!channel || channel.status !== 'active' || !channel.credentials) return null;
      // Still in the same group once locked (a reconnect may have moved one meanwhile), and active.
      const siblings = locked.filter(
        (c) =>
          c.id !== channelId &&
          channel.credentialsGroup !== null &&
          c.credentialsGroup === channel.credentialsGroup &&
          c.status === 'active' &&
          c.credentials !== null,
      );
      const outcome = await refresh(this.credentialsOf(channel) ?? {});
      if (outcome.kind === 'current') return this.credentialsOf(channel);
      if (outcome.kind === 'revoked') {
        // The authorization is gone for every channel it connected.
        for (const c of [channel, ...siblings]) {
          if (await this.disconnectInTransaction(em, c.id, 'credentials_revoked')) disconnected.push(c);
        }
        return null;
      }
      this.opened.forget(channelId, ...siblings.map((c) => c.id));
      await this.channels.setCredentials(
        em,
        channelId,
        this.box.sealJson(outcome.credentials, this.aad(channel.workspaceId, channel.id)),
      );
      for (const sibling of outcome.shared ? siblings : []) {
        const merged = { ...(this.credentialsOf(sibling) ?? {}), ...outcome.shared };
        await this.channels.setCredentials(
          em,
          sibling.id,
          this.box.sealJson(merged, this.aad(sibling.workspaceId, sibling.id)),
        );
      }
      return outcome.credentials;
    });
    for (const c of disconnected)
      this.logDisconnectedByNetwork(c, 'token_refresh', 'the network refused to refresh the token');
    return credentials;
  }

  private async upsert(
    em: EntityManager,
    workspaceId: string,
    provider: ProviderId,
    account: ConnectedAccount,
    credentialsGroup: string | null,
  ): Promise<{ channel: Channel; created: boolean }> {
    const existing = await this.channels.lockByAccount(em, workspaceId, provider, account.externalId);
    const id = existing?.id ?? randomUUID();
    const credentials = this.keepRefreshToken(existing, account.credentials);
    this.opened.forget(id);
    const profile: ChannelProfile = {
      name: account.name,
      handle: account.handle,
      avatarUrl: account.avatarUrl,
      profileUrl: account.profileUrl,
      limits: account.limits,
      status: 'active',
      credentials: this.box.sealJson(credentials, this.aad(workspaceId, id)),
      credentialsGroup,
      connectedAt: new Date(),
      disconnectedAt: null,
      disconnectReason: null,
    };
    const saved = existing
      ? { channel: await this.channels.updateProfile(em, id, profile), created: false }
      : {
          channel: await this.channels.insert(em, {
            id,
            workspaceId,
            provider,
            externalId: account.externalId,
            ...profile,
          }),
          created: true,
        };
    // Every way in (credentials, OAuth callback or choice, console, connect link) ends here: one
    // event per channel connected, committed with it.
    await this.events.record(em, {
      type: 'channel.connected',
      workspaceId,
      data: { channelId: id, provider, workspaceId },
    });
    return saved;
  }

  /**
   * A reconnect's credentials, keeping the stored refresh token when the network issued none this
   * time (Google gives one only at the first consent of an account to the app): an empty refresh
   * token never replaces a stored one, or the channel would die at the access token's expiry.
   */
  private keepRefreshToken(existing: Channel | null, fresh: Record<string, unknown>): Record<string, unknown> {
    const given = fresh.refreshToken;
    if (!existing || (typeof given === 'string' && given !== '') || !('accessToken' in fresh)) return fresh;
    const stored = existing.credentials ? this.credentialsOf(existing)?.refreshToken : null;
    return typeof stored === 'string' && stored !== '' ? { ...fresh, refreshToken: stored } : fresh;
  }

  /** Checks the request against the provider's credentials schema (the one its adapter parses with). */
  private validateCredentials(provider: ProviderId, credentials: Record<string, unknown>): void {
    const problems = this.providers.checkCredentials(provider, credentials);
    if (problems.length === 0) return;
    const details = problems.map((p) => ({
      field: p.field === 'credentials' ? p.field : `credentials.${p.field}`,
      message: p.message,
    }));
    throw AppError.invalid(details);
  }

  list(
    workspaceId: string,
    q: { status?: ChannelStatus; provider?: ProviderId; limit: number; cursor?: string },
  ): Promise<Page<Channel>> {
    return this.channels.page(workspaceId, q);
  }

  async get(workspaceId: string, id: string): Promise<Channel> {
    const channel = isUuid(id) ? await this.channels.find(workspaceId, id) : null;
    if (!channel) throw AppError.notFound('Channel');
    return channel;
  }

  /** The channels with these ids in the workspace (missing ones are simply absent). */
  findMany(workspaceId: string, ids: string[]): Promise<Channel[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.channels.findInWorkspace(workspaceId, ids);
  }

  /**
   * Channels by id across workspaces, for workers that hold ids from rows they already scoped (the
   * publisher's claimed targets). Missing ids are absent from the map. Plain SQL (no entity
   * hydration): the publisher reads the channels of each batch of claims.
   */
  async findByIds(ids: string[]): Promise<Map<string, Channel>> {
    if (ids.length === 0) return new Map();
    return new Map((await this.channels.findByIds(ids)).map((c) => [c.id, c]));
  }

  /** Ids of every active channel across workspaces, for workers that pick work on active channels only. */
  activeIds(): Promise<string[]> {
    return this.channels.activeIds();
  }

  /**
   * Active channels of these providers across workspaces, by id after `afterId`, `limit` at a time
   * (workers that walk them in batches: the renewal of long-lived tokens).
   */
  async activeOfProviders(providers: string[], afterId: string | null, limit: number): Promise<Channel[]> {
    if (providers.length === 0) return [];
    return this.channels.activeOfProviders(providers, afterId, limit);
  }

  /**
   * Erases the workspace's channels (docs/adr/0052): each one's authorization is revoked at the network
   * where its plugin offers it (best effort, at most `revokeTimeoutMs`; a failure is logged and the
   * erasure goes on), then its row goes, with the targets, slots and schedules that hang off it. Resumable:
   * a channel whose row is gone was done; one still there is revoked again, which networks accept.
   */
  async eraseWorkspace(workspaceId: string, revokeTimeoutMs: number): Promise<number> {
    let erased = 0;
    // Channels chosen in one authorization share its grant: it is revoked once, with the first of them.
    const revokedGroups = new Set<string>();
    for (;;) {
      const batch = await this.channels.someOfWorkspace(workspaceId, 50);
      if (batch.length === 0) return erased;
      for (const channel of batch) {
        const group = channel.credentialsGroup;
        if (group === null || !revokedGroups.has(group)) await this.revokeAtNetwork(channel, revokeTimeoutMs);
        if (group !== null) revokedGroups.add(group);
        this.opened.forget(channel.id);
        await this.channels.delete(channel.id);
        erased++;
      }
    }
  }

  private async revokeAtNetwork(channel: Channel, timeoutMs: number): Promise<void> {
    let credentials: Record<string, unknown> | null;
    try {
      credentials = this.credentialsOf(channel);
    } catch {
      credentials = null;
    }
    if (!credentials) return;
    await this.revokeWith(channel, credentials, timeoutMs, 'erasing its workspace');
  }

  /**
   * Asks the channel's network to revoke these credentials, where its plugin can: never throws, never
   * waits longer than `timeoutMs` (a network that is down is logged, without a secret, and left).
   */
  private async revokeWith(
    channel: Channel,
    credentials: Record<string, unknown>,
    timeoutMs: number,
    doing: string,
  ): Promise<void> {
    const provider = this.providers.has(channel.provider) ? this.providers.get(channel.provider) : null;
    if (!provider?.revokeAccess) return;
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), timeoutMs);
    try {
      await Promise.race([
        provider.revokeAccess(credentials, controller.signal),
        new Promise((_, reject) =>
          controller.signal.addEventListener('abort', () => reject(new Error(`no answer within ${timeoutMs} ms`))),
        ),
      ]);
    } catch (err) {
      this.logger.warn({
        msg: `Could not revoke a channel at its network while ${doing}`,
        channelId: channel.id,
        provider: channel.provider,
        err: (err as Error).message,
      });
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Disconnects at the user's request; a second call is a no-op that records nothing. Once the
   * disconnect is committed, the authorization is revoked at the network where its plugin offers it
   * (as an erasure does, best effort, at most REVOKE_TIMEOUT_MS), unless another connected channel
   * shares it (a Facebook login's other Pages, a LinkedIn member's organization pages): revoking it
   * would disconnect those too.
   */
  async disconnect(workspaceId: string, id: string): Promise<void> {
    const channel = await this.get(workspaceId, id);
    let credentials: Record<string, unknown> | null;
    try {
      credentials = this.credentialsOf(channel);
    } catch {
      credentials = null;
    }
    const disconnected = await this.transactions.run((em) => this.disconnectInTransaction(em, id, 'user_request'));
    if (!disconnected || !credentials) return;
    if (channel.credentialsGroup !== null && (await this.channels.groupHasOtherActive(id, channel.credentialsGroup))) {
      return;
    }
    await this.revokeWith(channel, credentials, REVOKE_TIMEOUT_MS, 'disconnecting it');
  }

  /**
   * The one log line of a channel the network disconnected (it refused the stored credentials), written
   * by whoever found it once the disconnect is committed. `cause`: the network's words (never a secret).
   */
  logDisconnectedByNetwork(
    channel: Pick<Channel, 'id' | 'workspaceId' | 'provider'>,
    source: DisconnectSource,
    cause?: string,
  ): void {
    this.logger.warn({
      msg: 'Channel disconnected by the network',
      channelId: channel.id,
      workspaceId: channel.workspaceId,
      provider: channel.provider,
      reason: 'credentials_revoked',
      source,
      ...(cause ? { cause } : {}),
    });
  }

  /** Returns true when this call disconnected the channel (false when it already was). */
  async disconnectInTransaction(em: EntityManager, channelId: string, reason: DisconnectReason): Promise<boolean> {
    const channel = await this.channels.lock(em, channelId);
    if (!channel || channel.status === 'disconnected') return false;
    this.opened.forget(channelId);
    const updated = await this.channels.markDisconnected(em, channelId, reason);
    await this.events.record(em, {
      type: 'channel.disconnected',
      workspaceId: channel.workspaceId,
      data: { ...ChannelDto.from(updated), reason },
    });
    return true;
  }

  /**
   * The channel's credentials for a provider call, decrypted (kept opened per stored value, see
   * CredentialsCache: deeply frozen, shared by every caller); null when disconnected.
   */
  credentialsOf(channel: Channel): Record<string, unknown> | null {
    const sealed = channel.credentials;
    if (!sealed) return null;
    const aad = this.aad(channel.workspaceId, channel.id);
    return this.opened.get(channel.id, sealed, aad, () => this.box.openJson(sealed, aad));
  }

  /** Stores refreshed session tokens returned by an adapter (only while still active). */
  async updateCredentials(channel: Channel, credentials: Record<string, unknown>, em?: EntityManager): Promise<void> {
    this.opened.forget(channel.id);
    await this.channels.setCredentialsIfActive(
      channel.id,
      this.box.sealJson(credentials, this.aad(channel.workspaceId, channel.id)),
      em,
    );
  }

  private aad(workspaceId: string, channelId: string): string {
    return `channel:${workspaceId}:${channelId}`;
  }
}

function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string; driverError?: { code?: string } };
  return e.code === '23505' || e.driverError?.code === '23505';
}
