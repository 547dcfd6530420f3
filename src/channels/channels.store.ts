import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DataSource, EntityManager, In, Not, Repository } from 'typeorm';
import { Page } from '../common/pagination/pagination';
import { paginate } from '../database/keyset-pagination';
import { runSql } from '../database/direct-query';
import type { ProviderId } from '../providers/provider.list';
import { Channel, ChannelStatus, DisconnectReason } from './channel.entity';
import { CHANNEL_COLUMNS, toChannel } from './channel-rows';

/** What connecting an account (again) writes on its channel. */
export type ChannelProfile = Pick<
  Channel,
  | 'name'
  | 'handle'
  | 'avatarUrl'
  | 'profileUrl'
  | 'limits'
  | 'status'
  | 'credentials'
  | 'credentialsGroup'
  | 'connectedAt'
  | 'disconnectedAt'
  | 'disconnectReason'
>;

/**
 * The `channels` table (owned by channels). Methods taking an EntityManager run in the caller's
 * transaction; the others on the pool.
 */
@Injectable()
export class ChannelsStore {
  constructor(
    @InjectRepository(Channel) private readonly channels: Repository<Channel>,
    private readonly dataSource: DataSource,
  ) {}

  /** The workspace's channel of this account, locked for the caller's transaction. */
  lockByAccount(em: EntityManager, workspaceId: string, provider: ProviderId, externalId: string) {
    return em
      .getRepository(Channel)
      .findOne({ where: { workspaceId, provider, externalId }, lock: { mode: 'pessimistic_write' } });
  }

  /** Rewrites the profile of a channel, then reads it back. */
  async updateProfile(em: EntityManager, id: string, profile: ChannelProfile): Promise<Channel> {
    await em.getRepository(Channel).update({ id }, profile);
    return em.getRepository(Channel).findOneByOrFail({ id });
  }

  insert(
    em: EntityManager,
    channel: Pick<Channel, 'id' | 'workspaceId' | 'provider' | 'externalId'> & ChannelProfile,
  ): Promise<Channel> {
    const repo = em.getRepository(Channel);
    return repo.save(repo.create(channel));
  }

  /** The workspace's channels of these accounts of a provider. */
  findByExternalIds(workspaceId: string, provider: ProviderId, externalIds: string[]): Promise<Channel[]> {
    return this.channels.findBy({ workspaceId, provider, externalId: In(externalIds) });
  }

  /**
   * Locks the channel and every channel of its credentials group (`SELECT ... FOR UPDATE`, in id order:
   * two members refreshing at once cannot deadlock) and reads them.
   */
  async lockWithGroup(em: EntityManager, channelId: string): Promise<Channel[]> {
    const ids = (
      await em.query<Array<{ id: string }>>(
        `SELECT id FROM channels
          WHERE id = $1 OR credentials_group = (SELECT credentials_group FROM channels WHERE id = $1)
          ORDER BY id FOR UPDATE`,
        [channelId],
      )
    ).map((r) => r.id);
    return ids.length > 0 ? em.getRepository(Channel).findBy({ id: In(ids) }) : [];
  }

  /** Stores sealed credentials (whatever the channel's status). */
  async setCredentials(em: EntityManager, id: string, credentials: string): Promise<void> {
    await em.getRepository(Channel).update({ id }, { credentials });
  }

  /** Stores sealed credentials while the channel is still active. */
  async setCredentialsIfActive(id: string, credentials: string, em: EntityManager = this.channels.manager) {
    await em.getRepository(Channel).update({ id, status: 'active' }, { credentials });
  }

  page(
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
    });
  }

  /** Up to `limit` channels of the workspace, connected or not (an erasure walks them). */
  someOfWorkspace(workspaceId: string, limit: number): Promise<Channel[]> {
    return this.channels.find({ where: { workspaceId }, order: { id: 'ASC' }, take: limit });
  }

  async delete(id: string): Promise<void> {
    await this.channels.delete({ id });
  }

  find(workspaceId: string, id: string): Promise<Channel | null> {
    return this.channels.findOne({ where: { id, workspaceId } });
  }

  /** The channels with these ids in the workspace. */
  findInWorkspace(workspaceId: string, ids: string[]): Promise<Channel[]> {
    return this.channels
      .createQueryBuilder('c')
      .where('c.workspace_id = :workspaceId AND c.id IN (:...ids)', { workspaceId, ids })
      .getMany();
  }

  /** Channels by id across workspaces, on the pg connection without entity hydration (the publisher's batches). */
  async findByIds(ids: string[]): Promise<Channel[]> {
    const rows = await runSql(this.dataSource, `SELECT ${CHANNEL_COLUMNS} FROM channels WHERE id = ANY($1::uuid[])`, [
      ids,
    ]);
    return rows.map(toChannel);
  }

  async activeIds(): Promise<string[]> {
    const rows = await this.channels.find({ select: { id: true }, where: { status: 'active' } });
    return rows.map((c) => c.id);
  }

  /** Active channels of these providers, by id after `afterId`, `limit` at a time. */
  activeOfProviders(providers: string[], afterId: string | null, limit: number): Promise<Channel[]> {
    const query = this.channels
      .createQueryBuilder('c')
      .where('c.status = :status AND c.provider IN (:...providers)', { status: 'active', providers })
      .orderBy('c.id', 'ASC')
      .limit(limit);
    if (afterId) query.andWhere('c.id > :afterId', { afterId });
    return query.getMany();
  }

  /** Whether another channel shares this one's authorization (same credentials group) and is still connected. */
  async groupHasOtherActive(channelId: string, credentialsGroup: string): Promise<boolean> {
    return this.channels.exists({ where: { credentialsGroup, status: 'active', id: Not(channelId) } });
  }

  /** The channel, locked for the caller's transaction. */
  lock(em: EntityManager, id: string): Promise<Channel | null> {
    return em.getRepository(Channel).findOne({ where: { id }, lock: { mode: 'pessimistic_write' } });
  }

  /** Marks the channel disconnected now, wiping its credentials, then reads it back. */
  async markDisconnected(em: EntityManager, id: string, reason: DisconnectReason): Promise<Channel> {
    const repo = em.getRepository(Channel);
    await repo.update(
      { id },
      { status: 'disconnected', credentials: null, disconnectedAt: () => 'now()', disconnectReason: reason },
    );
    return repo.findOneByOrFail({ id });
  }
}
