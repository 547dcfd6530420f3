import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DataSource, EntityManager, Repository } from 'typeorm';
import { Page } from '../common/pagination/pagination';
import { paginate } from '../database/keyset-pagination';
import { deleteInBatches } from '../database/batched-delete';
import { runPrepared, runSql } from '../database/direct-query';
import { EventRecord } from './event.entity';
import type { EventType, NewEvent } from './event-payloads';

/** Postgres NOTIFY channel the relay listens on; the notification is sent on commit only. */
export const EVENTS_NOTIFY_CHANNEL = 'sps_events';

/** Columns an event is inserted with (raw SQL; checked against the entity by test/database/row-mappings). */
export const EVENT_INSERT_COLUMNS = 'workspace_id, type, data';

/**
 * The `events` table as its owner writes and lists it: inserts in the caller's transaction (with the
 * NOTIFY the relay waits for), the workspace's log, pruning. The outbox side (the relay's locks and
 * marks, delivery bodies) is EventOutboxStore.
 */
@Injectable()
export class EventsStore {
  constructor(@InjectRepository(EventRecord) private readonly events: Repository<EventRecord>) {}

  /** Inserts the event with `em` (the caller's transaction) and notifies the relay on commit; one round trip. */
  async insert<T extends EventType>(em: EntityManager, event: NewEvent<T>): Promise<{ id: string; createdAt: Date }> {
    const [row] = await em.query<Array<{ id: string; created_at: Date }>>(
      `WITH e AS (INSERT INTO events (${EVENT_INSERT_COLUMNS}) VALUES ($1, $2, $3) RETURNING id, created_at)
       SELECT e.id, e.created_at, pg_notify($4, e.id::text) FROM e`,
      [event.workspaceId, event.type, JSON.stringify(event.data), EVENTS_NOTIFY_CHANNEL],
    );
    return { id: row.id, createdAt: row.created_at };
  }

  /**
   * Like insert, for many events: one INSERT and one notification for the lot. A prepared statement
   * taking the events as one JSON array (no array literal of JSON texts to escape and parse).
   */
  async insertMany(em: EntityManager, events: NewEvent[]): Promise<void> {
    if (events.length === 0) return;
    await runPrepared(
      em,
      'events.record-many',
      `WITH e AS (INSERT INTO events (${EVENT_INSERT_COLUMNS})
                  SELECT ${EVENT_INSERT_COLUMNS}
                    FROM jsonb_to_recordset($1::jsonb) AS r(workspace_id uuid, type varchar, data jsonb)
                  RETURNING id)
       SELECT pg_notify($2, count(*)::text) FROM e`,
      [
        JSON.stringify(events.map((e) => ({ workspace_id: e.workspaceId, type: e.type, data: e.data }))),
        EVENTS_NOTIFY_CHANNEL,
      ],
    );
  }

  /**
   * One statement that changes the caller's rows and records the events of the rows it changed (see
   * EventsService.recordWith): the caller's CTEs, then the insert of each event whose key the CTE
   * `keysFrom` returned (column `key`), with one notification for the lot; returns the one row of the
   * caller's CTE `resultFrom`. The caller's parameters come first; the events are the last two.
   */
  async insertWith<R>(
    on: DataSource | EntityManager,
    change: { ctes: string; keysFrom: string; resultFrom: string; params: unknown[] },
    events: Array<NewEvent & { key: string }>,
  ): Promise<R> {
    const n = change.params.length;
    const [row] = await runSql<R>(
      on,
      `WITH ${change.ctes},
       outbox_new AS (
         INSERT INTO events (${EVENT_INSERT_COLUMNS})
         SELECT ${EVENT_INSERT_COLUMNS}
           FROM jsonb_to_recordset($${n + 1}::jsonb) AS r(key text, workspace_id uuid, type varchar, data jsonb)
          WHERE r.key IN (SELECT key::text FROM ${change.keysFrom})
         RETURNING id),
       outbox_notified AS (SELECT pg_notify($${n + 2}, count(*)::text) FROM outbox_new HAVING count(*) > 0)
       SELECT (SELECT count(*) FROM outbox_notified)::int AS outbox_notified, r.* FROM ${change.resultFrom} AS r`,
      [
        ...change.params,
        JSON.stringify(events.map((e) => ({ key: e.key, workspace_id: e.workspaceId, type: e.type, data: e.data }))),
        EVENTS_NOTIFY_CHANNEL,
      ],
    );
    return row;
  }

  /** The workspace's events, newest first, optionally of one type. */
  page(workspaceId: string, opts: { type?: EventType; limit: number; cursor?: string }): Promise<Page<EventRecord>> {
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

  /** The workspace's events about one post (`data.id` or `data.postId`), newest first (at most `limit`). */
  ofPost(workspaceId: string, postId: string, limit: number): Promise<EventRecord[]> {
    return this.events
      .createQueryBuilder('e')
      .where('e.workspace_id = :workspaceId', { workspaceId })
      .andWhere("(e.data->>'id' = :postId OR e.data->>'postId' = :postId)", { postId })
      .orderBy('e.created_at', 'DESC')
      .addOrderBy('e.id', 'DESC')
      .limit(limit)
      .getMany();
  }

  /** Deletes dispatched events older than `days`, in batches that skip locked rows; returns how many went. */
  deleteDispatched(days: number, batchSize: number, stop?: () => boolean): Promise<number> {
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
