import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import { randomUUID } from 'node:crypto';
import { DataSource, EntityManager, Repository } from 'typeorm';
import { SecretBox } from '../common/crypto/secret-box';
import { AppError } from '../common/errors';
import { toErrorDetails } from '../common/validation.pipe';
import { SsrfBlockedError } from '../common/http/outbound-http';
import { Page, paginate } from '../common/pagination/pagination';
import { EventsService } from '../events/events.service';
import { ProviderError } from '../providers/provider.errors';
import { ProviderRegistry } from '../providers/provider.registry';
import { ConnectedAccount, ProviderId } from '../providers/social-provider.interface';
import { Channel, ChannelStatus, DisconnectReason } from './channel.entity';
import { ChannelDto } from './dto/channel.dto';
import { CREDENTIALS_DTO_BY_PROVIDER } from './dto/connect-channel.dto';
import { isUuid } from '../common/validators';

/** Connected accounts: connect (verified by the provider), list, read, disconnect. */
@Injectable()
export class ChannelsService {
  constructor(
    @InjectRepository(Channel) private readonly channels: Repository<Channel>,
    private readonly dataSource: DataSource,
    private readonly providers: ProviderRegistry,
    private readonly box: SecretBox,
    private readonly events: EventsService,
  ) {}

  /**
   * Verifies the credentials with the provider and stores the channel, or reactivates the
   * workspace's existing channel for the same account. `created` tells which.
   */
  async connect(workspaceId: string, provider: ProviderId, credentials: Record<string, unknown>) {
    await this.validateCredentials(provider, credentials);
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
    try {
      return await this.upsert(workspaceId, provider, account);
    } catch (err) {
      if ((err as { code?: string }).code === '23505') return this.upsert(workspaceId, provider, account); // lost a race
      throw err;
    }
  }

  private async upsert(workspaceId: string, provider: ProviderId, account: ConnectedAccount) {
    return this.dataSource.transaction(async (em) => {
      const repo = em.getRepository(Channel);
      const existing = await repo.findOne({
        where: { workspaceId, provider, externalId: account.externalId },
        lock: { mode: 'pessimistic_write' },
      });
      const id = existing?.id ?? randomUUID();
      const profile = {
        name: account.name,
        handle: account.handle,
        avatarUrl: account.avatarUrl,
        profileUrl: account.profileUrl,
        limits: account.limits,
        status: 'active' as ChannelStatus,
        credentials: this.box.sealJson(account.credentials, this.aad(workspaceId, id)),
        connectedAt: new Date(),
        disconnectedAt: null,
        disconnectReason: null,
      };
      if (existing) {
        await repo.update({ id }, profile);
        return { channel: await repo.findOneByOrFail({ id }), created: false };
      }
      const channel = await repo.save(
        repo.create({ id, workspaceId, provider, externalId: account.externalId, ...profile }),
      );
      return { channel, created: true };
    });
  }

  private async validateCredentials(provider: ProviderId, credentials: Record<string, unknown>): Promise<void> {
    const cls: new () => object = CREDENTIALS_DTO_BY_PROVIDER[provider];
    const dto = plainToInstance(cls, credentials);
    const errors = await validate(dto, { whitelist: true, forbidNonWhitelisted: true, stopAtFirstError: true });
    if (errors.length === 0) return;
    const details = toErrorDetails(errors, 'credentials');
    throw AppError.validation(details.map((d) => `${d.field}: ${d.message}`).join('; '), details);
  }

  list(
    workspaceId: string,
    q: { status?: ChannelStatus; provider?: ProviderId; limit: number; cursor?: string },
  ): Promise<Page<Channel>> {
    const qb = this.channels.createQueryBuilder('c').where('c.workspace_id = :workspaceId', { workspaceId });
    if (q.status) qb.andWhere('c.status = :status', { status: q.status });
    if (q.provider) qb.andWhere('c.provider = :provider', { provider: q.provider });
    return paginate(qb, {
      sortColumn: 'c.created_at',
      idColumn: 'c.id',
      direction: 'DESC',
      limit: q.limit,
      cursor: q.cursor,
      cursorOf: (c) => [c.createdAt.toISOString(), c.id],
    });
  }

  async get(workspaceId: string, id: string): Promise<Channel> {
    const channel = isUuid(id) ? await this.channels.findOne({ where: { id, workspaceId } }) : null;
    if (!channel) throw AppError.notFound('Channel');
    return channel;
  }

  /** The channels with these ids in the workspace (missing ones are simply absent). */
  findMany(workspaceId: string, ids: string[]): Promise<Channel[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.channels
      .createQueryBuilder('c')
      .where('c.workspace_id = :workspaceId AND c.id IN (:...ids)', { workspaceId, ids })
      .getMany();
  }

  /** Disconnects at the user's request; a second call is a no-op that records nothing. */
  async disconnect(workspaceId: string, id: string): Promise<void> {
    await this.get(workspaceId, id);
    await this.dataSource.transaction((em) => this.disconnectInTransaction(em, id, 'user_request'));
  }

  /** The provider said the stored credentials are revoked: disconnect and record the event. */
  async markCredentialsRevoked(channelId: string, em?: EntityManager): Promise<void> {
    if (em) return void (await this.disconnectInTransaction(em, channelId, 'credentials_revoked'));
    await this.dataSource.transaction((tx) => this.disconnectInTransaction(tx, channelId, 'credentials_revoked'));
  }

  /** Returns true when this call disconnected the channel (false when it already was). */
  async disconnectInTransaction(em: EntityManager, channelId: string, reason: DisconnectReason): Promise<boolean> {
    const repo = em.getRepository(Channel);
    const channel = await repo.findOne({ where: { id: channelId }, lock: { mode: 'pessimistic_write' } });
    if (!channel || channel.status === 'disconnected') return false;
    await repo.update(
      { id: channelId },
      { status: 'disconnected', credentials: null, disconnectedAt: () => 'now()', disconnectReason: reason },
    );
    const updated = await repo.findOneByOrFail({ id: channelId });
    await this.events.record(em, {
      type: 'channel.disconnected',
      workspaceId: channel.workspaceId,
      data: { ...ChannelDto.from(updated), reason },
    });
    return true;
  }

  /** Decrypts the channel's credentials for a provider call; null when disconnected. */
  credentialsOf(channel: Channel): Record<string, unknown> | null {
    return channel.credentials
      ? this.box.openJson(channel.credentials, this.aad(channel.workspaceId, channel.id))
      : null;
  }

  /** Stores refreshed session tokens returned by an adapter (only while still active). */
  async updateCredentials(channel: Channel, credentials: Record<string, unknown>, em?: EntityManager): Promise<void> {
    await (em ? em.getRepository(Channel) : this.channels).update(
      { id: channel.id, status: 'active' },
      { credentials: this.box.sealJson(credentials, this.aad(channel.workspaceId, channel.id)) },
    );
  }

  private aad(workspaceId: string, channelId: string): string {
    return `channel:${workspaceId}:${channelId}`;
  }
}
