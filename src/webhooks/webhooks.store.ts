import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DataSource, EntityManager, Repository } from 'typeorm';
import { Page } from '../common/pagination/pagination';
import { paginate } from '../database/keyset-pagination';
import { Webhook } from './webhook.entity';

/** What a subscription's settings write (create, replace). */
export type WebhookSettings = Pick<Webhook, 'url' | 'events' | 'description' | 'enabled'>;

/** The `webhooks` table (owned by webhooks): subscriptions, their secrets and their replay cooldown. */
@Injectable()
export class WebhooksStore {
  constructor(
    @InjectRepository(Webhook) private readonly webhooks: Repository<Webhook>,
    private readonly dataSource: DataSource,
  ) {}

  insert(webhook: Omit<Webhook, 'createdAt' | 'updatedAt' | 'workspace' | 'lastReplayAt'>): Promise<Webhook> {
    return this.webhooks.save(this.webhooks.create(webhook));
  }

  page(workspaceId: string, q: { limit: number; cursor?: string }): Promise<Page<Webhook>> {
    const qb = this.webhooks.createQueryBuilder('w').where('w.workspace_id = :workspaceId', { workspaceId });
    return paginate(qb, {
      sortColumn: 'w.created_at',
      idColumn: 'w.id',
      direction: 'DESC',
      limit: q.limit,
      cursor: q.cursor,
    });
  }

  find(workspaceId: string, id: string): Promise<Webhook | null> {
    return this.webhooks.findOne({ where: { id, workspaceId } });
  }

  async update(
    workspaceId: string,
    id: string,
    changes: WebhookSettings & Partial<Pick<Webhook, 'disabledReason' | 'failingSince'>>,
  ): Promise<void> {
    await this.webhooks.update({ id, workspaceId }, changes);
  }

  /** Deletes the subscription (its deliveries and attempts cascade); false when there was none. */
  /** Which of these workspaces have an enabled subscription to the event type. */
  async workspacesSubscribedTo(workspaceIds: string[], eventType: string): Promise<string[]> {
    if (workspaceIds.length === 0) return [];
    const rows: Array<{ workspace_id: string }> = await this.webhooks.query(
      `SELECT DISTINCT workspace_id FROM webhooks
        WHERE workspace_id = ANY($1::uuid[]) AND enabled AND $2 = ANY(events)`,
      [workspaceIds, eventType],
    );
    return rows.map((r) => r.workspace_id);
  }

  async delete(workspaceId: string, id: string): Promise<boolean> {
    const result = await this.webhooks.delete({ id, workspaceId });
    return !!result.affected;
  }

  /** The workspace's subscription, locked for the caller's transaction. */
  lock(em: EntityManager, workspaceId: string, id: string): Promise<Webhook | null> {
    return em.getRepository(Webhook).findOne({ where: { id, workspaceId }, lock: { mode: 'pessimistic_write' } });
  }

  /** Stores a new sealed secret; the current one becomes the previous one, valid `overlapMs` more. */
  async rotateSecret(em: EntityManager, webhook: Webhook, secret: string, overlapMs: number): Promise<void> {
    await em.getRepository(Webhook).update(
      { id: webhook.id },
      {
        secret,
        previousSecret: webhook.secret,
        previousSecretExpiresAt: () => `now() + interval '${overlapMs} milliseconds'`,
        secretRotatedAt: () => 'now()',
      },
    );
  }

  /**
   * Records a replay now, unless the last one is less than `cooldownMs` old; then answers how many ms
   * remain (0 when the slot was taken).
   */
  async takeReplaySlot(webhook: Pick<Webhook, 'id' | 'workspaceId'>, cooldownMs: number): Promise<number> {
    const taken: unknown[] = await this.dataSource.query(
      `WITH taken AS (
         UPDATE webhooks SET last_replay_at = now()
          WHERE id = $1 AND workspace_id = $2
            AND (last_replay_at IS NULL OR last_replay_at <= now() - make_interval(secs => $3::double precision / 1000))
         RETURNING id)
       SELECT id FROM taken`,
      [webhook.id, webhook.workspaceId, cooldownMs],
    );
    if (taken.length > 0) return 0;
    const [{ wait_ms }] = await this.dataSource.query<[{ wait_ms: number }]>(
      `SELECT GREATEST(0, EXTRACT(EPOCH FROM (last_replay_at + make_interval(secs => $2::double precision / 1000) - now())) * 1000)::int AS wait_ms
         FROM webhooks WHERE id = $1`,
      [webhook.id, cooldownMs],
    );
    return Math.max(1, wait_ms);
  }
}
