import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { Page, paginate } from '../common/pagination/pagination';
import { EventRecord } from './event.entity';
import type { EventEnvelope, EventType, NewEvent } from './event-payloads';
import { deleteInBatches } from '../database/batched-delete';
import { runPrepared } from '../database/direct-query';

/** Postgres NOTIFY channel the relay listens on; the notification is sent on commit only. */
export const EVENTS_NOTIFY_CHANNEL = 'sps_events';

/** The outbox: record events inside the caller's transaction; read the workspace's event log. */
@Injectable()
export class EventsService {
  constructor(@InjectRepository(EventRecord) private readonly events: Repository<EventRecord>) {}

  /**
   * Writes the event with the caller's EntityManager, i.e. in the caller's transaction: it exists
   * if and only if the state change commits. Nothing is pushed to Redis here.
   */
  async record<T extends EventType>(em: EntityManager, event: NewEvent<T>): Promise<EventEnvelope<T>> {
    // One round trip: insert and notify (the notification is delivered when the transaction commits).
    const [row] = await em.query<Array<{ id: string; created_at: Date }>>(
      `WITH e AS (INSERT INTO events (workspace_id, type, data) VALUES ($1, $2, $3) RETURNING id, created_at)
       SELECT e.id, e.created_at, pg_notify($4, e.id::text) FROM e`,
      [event.workspaceId, event.type, JSON.stringify(event.data), EVENTS_NOTIFY_CHANNEL],
    );
    return { id: row.id, timestamp: row.created_at.toISOString(), ...event };
  }

  /**
   * Like record(), for many events: one INSERT and one notification for the lot. A prepared statement
   * taking the events as one JSON array (no array literal of JSON texts to escape and parse): the
   * publisher records its events through here, once per batch of outcomes.
   */
  async recordMany(em: EntityManager, events: NewEvent[]): Promise<void> {
    if (events.length === 0) return;
    await runPrepared(
      em,
      'events.record-many',
      `WITH e AS (INSERT INTO events (workspace_id, type, data)
                  SELECT workspace_id, type, data
                    FROM jsonb_to_recordset($1::jsonb) AS r(workspace_id uuid, type varchar, data jsonb)
                  RETURNING id)
       SELECT pg_notify($2, count(*)::text) FROM e`,
      [
        JSON.stringify(events.map((e) => ({ workspace_id: e.workspaceId, type: e.type, data: e.data }))),
        EVENTS_NOTIFY_CHANNEL,
      ],
    );
  }

  list(workspaceId: string, opts: { type?: EventType; limit: number; cursor?: string }): Promise<Page<EventRecord>> {
    const qb = this.events.createQueryBuilder('e').where('e.workspace_id = :workspaceId', { workspaceId });
    if (opts.type) qb.andWhere('e.type = :type', { type: opts.type });
    return paginate(qb, {
      sortColumn: 'e.created_at',
      idColumn: 'e.id',
      direction: 'DESC',
      limit: opts.limit,
      cursor: opts.cursor,
    });
  }

  /**
   * Deletes events the relay has dispatched that are older than `days`, in batches (retention). Events
   * not yet dispatched are never deleted. Returns how many went.
   */
  pruneDispatched(days: number, batchSize: number, stop?: () => boolean): Promise<number> {
    return deleteInBatches(
      (sql, params) => this.events.query(sql, params),
      'events',
      `SELECT id FROM events WHERE dispatched_at IS NOT NULL AND created_at < now() - make_interval(days => $1)`,
      [days],
      batchSize,
      stop,
    );
  }
}
