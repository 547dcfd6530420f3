import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { runPrepared } from '../database/direct-query';
import { EventRecord } from './event.entity';
import type { EventType } from './event-payloads';

/** An outbox event as the relay fans it out to subscriptions. */
export type OutboxEvent = Pick<EventRecord, 'id' | 'workspaceId' | 'type'>;
/** What a delivery sends of its event. */
export type EventBody = Pick<EventRecord, 'id' | 'data' | 'createdAt'>;
/** An event of a replayed range. */
export type ReplayedEvent = Pick<EventRecord, 'id' | 'type' | 'createdAt'>;

type Row = Record<string, unknown>;

/** Columns and mapper of takeUndispatched (raw SQL; checked against the entity by test/database/row-mappings). */
export const OUTBOX_EVENT_COLUMNS = 'id, workspace_id, type';
export function toOutboxEvent(r: Row): OutboxEvent {
  return { id: r.id as string, workspaceId: r.workspace_id as string, type: r.type as EventType };
}

/** Columns and mapper of bodiesOf (raw SQL; checked against the entity by test/database/row-mappings). */
export const EVENT_BODY_COLUMNS = 'id, data, created_at';
export function toEventBody(r: Row): EventBody {
  return { id: r.id as string, data: r.data as EventBody['data'], createdAt: r.created_at as Date };
}

/** Columns and mapper of listRange (raw SQL; checked against the entity by test/database/row-mappings). */
export const REPLAYED_EVENT_COLUMNS = 'id, type, created_at';
export function toReplayedEvent(r: Row): ReplayedEvent {
  return { id: r.id as string, type: r.type as EventType, createdAt: r.created_at as Date };
}

/**
 * The outbox as its consumer (webhooks' relay and deliveries) sees it. The relay and the delivery
 * claims are measured paths (bench:webhooks), hence plain SQL (docs/adr/0010). The relay's batch
 * read is a prepared statement: its generic plan (LIMIT unknown) is the index scan in created_at
 * order. Writing events is EventsService.record.
 */
@Injectable()
export class EventOutboxStore {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Takes up to `limit` undispatched events, oldest first, in `em`'s transaction: marks them dispatched
   * and returns them, in one statement, skipping rows another relay holds. The rows stay locked until
   * the transaction ends, and a rollback (their deliveries could not be enqueued) leaves them undispatched.
   */
  async takeUndispatched(em: EntityManager, limit: number): Promise<OutboxEvent[]> {
    const rows = await runPrepared(
      em,
      'events.take-undispatched',
      `WITH taken AS (
         UPDATE events e SET dispatched_at = now()
           FROM (SELECT id FROM events WHERE dispatched_at IS NULL
                  ORDER BY created_at LIMIT $1 FOR UPDATE SKIP LOCKED) d
          WHERE e.id = d.id
         RETURNING e.id, e.workspace_id, e.type, e.created_at)
       SELECT ${OUTBOX_EVENT_COLUMNS} FROM taken ORDER BY created_at`,
      [limit],
    );
    return rows.map(toOutboxEvent);
  }

  /** The data and time of these events, each looked up in its workspace; missing ones are absent. */
  async bodiesOf(keys: Array<{ id: string; workspaceId: string }>): Promise<Map<string, EventBody>> {
    if (keys.length === 0) return new Map();
    const rows: Row[] = await this.dataSource.query(
      `SELECT ${EVENT_BODY_COLUMNS} FROM events
        WHERE (id, workspace_id) IN (SELECT * FROM unnest($1::uuid[], $2::uuid[]))`,
      [keys.map((k) => k.id), keys.map((k) => k.workspaceId)],
    );
    return new Map(rows.map((r) => [r.id as string, toEventBody(r)]));
  }

  /**
   * The workspace's events created in [from, to) of these types (any type when empty), oldest
   * first, at most `limit`.
   */
  async listRange(
    workspaceId: string,
    from: Date,
    to: Date,
    types: readonly string[],
    limit: number,
  ): Promise<ReplayedEvent[]> {
    const rows: Row[] = await this.dataSource.query(
      `SELECT ${REPLAYED_EVENT_COLUMNS} FROM events
        WHERE workspace_id = $1 AND created_at >= $2 AND created_at < $3
          AND (cardinality($4::varchar[]) = 0 OR type = ANY ($4::varchar[]))
        ORDER BY created_at, id LIMIT $5`,
      [workspaceId, from, to, types, limit],
    );
    return rows.map(toReplayedEvent);
  }
}
