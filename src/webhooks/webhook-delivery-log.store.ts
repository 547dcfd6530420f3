import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DataSource, Repository } from 'typeorm';
import { Page } from '../common/pagination/pagination';
import { paginate } from '../database/keyset-pagination';
import { deleteInBatches } from '../database/batched-delete';
import { runSql } from '../database/direct-query';
import type { WebhookTestEventDto } from './dto/webhook-test.dto';
import { WebhookDeliveryAttempt } from './webhook-delivery-attempt.entity';
import { WebhookDelivery } from './webhook-delivery.entity';

type Row = Record<string, unknown>;

/** A delivery (re)set to pending, to enqueue: its next attempt is `attempts + 1`. */
export type QueuedDelivery = Pick<WebhookDelivery, 'id' | 'attempts'>;
/** A delivery the relay created or found for an event, and how long until its attempt is due. */
export type RelayedDelivery = Pick<WebhookDelivery, 'id' | 'attempts' | 'status'> & { delayMs: number };
/** A settled delivery set back to pending for a redelivery. */
export type ResetDelivery = Pick<WebhookDelivery, 'id' | 'eventId' | 'eventType' | 'attempts'>;

/** Columns a delivery is created with (raw SQL; checked against the entity by test/database/row-mappings). */
export const DELIVERY_INSERT_COLUMNS =
  'workspace_id, webhook_id, event_id, event_type, status, attempts, next_attempt_at';

/** Columns and mapper of the queued deliveries (raw SQL; checked by test/database/row-mappings). */
export const QUEUED_DELIVERY_COLUMNS = 'id, attempts';
export function toQueuedDelivery(r: Row): QueuedDelivery {
  return { id: r.id as string, attempts: r.attempts as number };
}

/** Columns and mapper of a delivery reset for redelivery (raw SQL; checked by test/database/row-mappings). */
export const RESET_DELIVERY_COLUMNS = 'id, event_id, event_type, attempts';
export function toResetDelivery(r: Row): ResetDelivery {
  return {
    id: r.id as string,
    eventId: r.event_id as string,
    eventType: r.event_type as string,
    attempts: r.attempts as number,
  };
}

/** Columns and mapper of the relay's deliveries, without the delay (raw SQL; checked by test/database/row-mappings). */
export const RELAYED_DELIVERY_COLUMNS = 'id, attempts, status';
export function toRelayedDelivery(r: Row): Omit<RelayedDelivery, 'delayMs'> {
  return { id: r.id as string, attempts: r.attempts as number, status: r.status as WebhookDelivery['status'] };
}

/** `a, b` -> `d.a, d.b`. */
function qualified(alias: string, columns: string): string {
  return columns
    .split(',')
    .map((c) => `${alias}.${c.trim()}`)
    .join(', ');
}

/**
 * The `webhook_deliveries` and `webhook_delivery_attempts` tables as the API, the relay and retention
 * see them: creating and resetting deliveries (relay, test events, redelivery, replay), the pending ones
 * whose job went missing, the attempt log, pruning. The delivery processor's claims and records are
 * WebhookDeliveryStore.
 */
@Injectable()
export class WebhookDeliveryLogStore {
  constructor(
    @InjectRepository(WebhookDeliveryAttempt) private readonly attempts: Repository<WebhookDeliveryAttempt>,
    private readonly dataSource: DataSource,
  ) {}

  /** The delivery attempts of these events, oldest first (at most `limit`). */
  attemptsOfEvents(workspaceId: string, eventIds: string[], limit: number): Promise<WebhookDeliveryAttempt[]> {
    if (eventIds.length === 0) return Promise.resolve([]);
    return this.attempts
      .createQueryBuilder('a')
      .where('a.workspace_id = :workspaceId', { workspaceId })
      .andWhere('a.event_id IN (:...eventIds)', { eventIds })
      .orderBy('a.created_at', 'ASC')
      .limit(limit)
      .getMany();
  }

  /**
   * One pending delivery per matching enabled subscription of each event (the relay), in one autocommitted
   * statement; an existing (subscription, event) delivery is returned as it is.
   */
  async insertForEvents(events: Array<{ id: string; workspaceId: string; type: string }>): Promise<RelayedDelivery[]> {
    const rows = await runSql<Row>(
      this.dataSource,
      `INSERT INTO webhook_deliveries (${DELIVERY_INSERT_COLUMNS})
       SELECT e.workspace_id, w.id, e.id, e.type, 'pending', 0, now()
         FROM unnest($1::uuid[], $2::uuid[], $3::varchar[]) AS e(id, workspace_id, type)
         JOIN webhooks w ON w.workspace_id = e.workspace_id AND w.enabled
                        AND (cardinality(w.events) = 0 OR e.type = ANY (w.events))
       ON CONFLICT (webhook_id, event_id) DO UPDATE SET updated_at = webhook_deliveries.updated_at
       RETURNING ${RELAYED_DELIVERY_COLUMNS},
                 GREATEST(0, EXTRACT(EPOCH FROM (next_attempt_at - now())) * 1000)::int AS delay_ms`,
      [events.map((e) => e.id), events.map((e) => e.workspaceId), events.map((e) => e.type)],
    );
    return rows.map((r) => ({ ...toRelayedDelivery(r), delayMs: r.delay_ms as number }));
  }

  /** A pending delivery of a test event (its envelope in `payload`), due now by the database's clock; its id. */
  async insertTest(
    delivery: Pick<WebhookDelivery, 'workspaceId' | 'webhookId' | 'eventId' | 'eventType'> & {
      payload: WebhookTestEventDto;
    },
  ): Promise<string> {
    const inserted = await this.dataSource
      .createQueryBuilder()
      .insert()
      .into(WebhookDelivery)
      .values({
        ...delivery,
        payload: { ...delivery.payload },
        status: 'pending',
        attempts: 0,
        nextAttemptAt: () => 'now()',
      })
      .returning(['id'])
      .execute();
    return (inserted.identifiers[0] as { id: string }).id;
  }

  /** The event type of the endpoint's delivery; undefined when the workspace's endpoint has no such delivery. */
  async eventTypeOf(workspaceId: string, webhookId: string, deliveryId: string): Promise<string | undefined> {
    const [row] = await this.dataSource.query<Array<{ event_type: string }>>(
      `SELECT event_type FROM webhook_deliveries WHERE id = $1 AND webhook_id = $2 AND workspace_id = $3`,
      [deliveryId, webhookId, workspaceId],
    );
    return row?.event_type;
  }

  /** The delivery of the endpoint's attempt with this id, if `attemptId` names one. */
  async deliveryOfAttempt(workspaceId: string, webhookId: string, attemptId: string): Promise<string | undefined> {
    const [row] = await this.dataSource.query<Array<{ delivery_id: string }>>(
      `SELECT delivery_id FROM webhook_delivery_attempts WHERE id = $1 AND webhook_id = $2 AND workspace_id = $3`,
      [attemptId, webhookId, workspaceId],
    );
    return row?.delivery_id;
  }

  /** Sets a settled delivery back to pending, due now; undefined when it is pending already. */
  async resetSettled(deliveryId: string): Promise<ResetDelivery | undefined> {
    const [row] = await this.dataSource.query<Row[]>(
      `WITH reset AS (
         UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = now(), updated_at = now()
          WHERE id = $1 AND status <> 'pending'
         RETURNING ${RESET_DELIVERY_COLUMNS})
       SELECT * FROM reset`,
      [deliveryId],
    );
    return row ? toResetDelivery(row) : undefined;
  }

  /**
   * The endpoint's deliveries of these events, due now: settled ones go back to pending, missing ones are
   * created; the ones pending already are left alone (and not returned).
   */
  async queueForReplay(
    workspaceId: string,
    webhookId: string,
    events: Array<{ id: string; type: string }>,
  ): Promise<QueuedDelivery[]> {
    if (events.length === 0) return [];
    const rows = await this.dataSource.query<Row[]>(
      `INSERT INTO webhook_deliveries AS d (${DELIVERY_INSERT_COLUMNS})
       SELECT $3::uuid, $2::uuid, e.id, e.type, 'pending', 0, now()
         FROM unnest($1::uuid[], $4::varchar[]) AS e(id, type)
       ON CONFLICT (webhook_id, event_id) DO UPDATE
          SET status = 'pending', next_attempt_at = now(), updated_at = now()
        WHERE d.status <> 'pending'
       RETURNING ${qualified('d', QUEUED_DELIVERY_COLUMNS)}`,
      [events.map((e) => e.id), webhookId, workspaceId, events.map((e) => e.type)],
    );
    return rows.map(toQueuedDelivery);
  }

  /** Pending deliveries due more than `graceMs` ago (their job was probably lost), oldest first. */
  async overduePending(graceMs: number, limit: number): Promise<QueuedDelivery[]> {
    const rows = await this.dataSource.query<Row[]>(
      `SELECT ${QUEUED_DELIVERY_COLUMNS} FROM webhook_deliveries
        WHERE status = 'pending' AND next_attempt_at <= now() - make_interval(secs => $1::double precision / 1000)
        ORDER BY next_attempt_at
        LIMIT $2`,
      [graceMs, limit],
    );
    return rows.map(toQueuedDelivery);
  }

  /** The endpoint's delivery attempts, newest first. */
  attemptsPage(
    workspaceId: string,
    webhookId: string,
    q: { limit: number; cursor?: string },
  ): Promise<Page<WebhookDeliveryAttempt>> {
    const qb = this.attempts
      .createQueryBuilder('a')
      .where('a.workspace_id = :workspaceId AND a.webhook_id = :id', { workspaceId, id: webhookId });
    return paginate(qb, {
      sortColumn: 'a.created_at',
      idColumn: 'a.id',
      direction: 'DESC',
      limit: q.limit,
      cursor: q.cursor,
    });
  }

  /**
   * Deletes settled deliveries of these statuses last touched more than `days` ago, with their attempts
   * (the foreign key cascades), in batches that skip locked rows; returns how many went.
   */
  deleteSettled(
    statuses: Array<'succeeded' | 'failed' | 'cancelled'>,
    days: number,
    batchSize: number,
    stop?: () => boolean,
  ): Promise<number> {
    return deleteInBatches(
      (sql, params) => this.dataSource.query(sql, params),
      'webhook_deliveries',
      `SELECT id FROM webhook_deliveries WHERE status = ANY($1::varchar[]) AND updated_at < now() - make_interval(days => $2)`,
      [statuses, days],
      batchSize,
      stop,
    );
  }
}
