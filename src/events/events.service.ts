import { Injectable } from '@nestjs/common';
import type { DataSource, EntityManager } from 'typeorm';
import { Page } from '../common/pagination/pagination';
import { EventRecord } from './event.entity';
import type { EventEnvelope, EventType, NewEvent } from './event-payloads';
import { EventsStore } from './events.store';

/** The outbox: record events inside the caller's transaction; read the workspace's event log. */
@Injectable()
export class EventsService {
  constructor(private readonly store: EventsStore) {}

  /**
   * Writes the event with the caller's EntityManager, i.e. in the caller's transaction: it exists
   * if and only if the state change commits. Nothing is pushed to Redis here.
   */
  async record<T extends EventType>(em: EntityManager, event: NewEvent<T>): Promise<EventEnvelope<T>> {
    const { id, createdAt } = await this.store.insert(em, event);
    return { id, timestamp: createdAt.toISOString(), ...event };
  }

  /** Like record(), for many events: one INSERT and one notification for the lot (the publisher's batches). */
  recordMany(em: EntityManager, events: NewEvent[]): Promise<void> {
    return this.store.insertMany(em, events);
  }

  /**
   * The outbox in the caller's own statement (docs/adr/0044): `change` is the caller's data-modifying
   * CTEs, one of which (`keysFrom`) returns the key of each row it changed; the events given are
   * candidates, each under the key of the row it is about, and only those whose key was returned are
   * written. The state change and its events are then one statement, atomic without a transaction of
   * their own (or part of `on`'s when it is a transaction's EntityManager). Returns the one row of the
   * caller's CTE `resultFrom`.
   */
  recordWith<R>(
    on: DataSource | EntityManager,
    change: { ctes: string; keysFrom: string; resultFrom: string; params: unknown[] },
    events: Array<NewEvent & { key: string }>,
  ): Promise<R> {
    return this.store.insertWith<R>(on, change, events);
  }

  /** The events about one post, newest first (the console's post page). */
  ofPost(workspaceId: string, postId: string, limit = 100): Promise<EventRecord[]> {
    return this.store.ofPost(workspaceId, postId, limit);
  }

  list(workspaceId: string, opts: { type?: EventType; limit: number; cursor?: string }): Promise<Page<EventRecord>> {
    return this.store.page(workspaceId, opts);
  }

  /**
   * Deletes events the relay has dispatched that are older than `days`, in batches (retention). Events
   * not yet dispatched are never deleted. Returns how many went.
   */
  pruneDispatched(days: number, batchSize: number, stop?: () => boolean): Promise<number> {
    return this.store.deleteDispatched(days, batchSize, stop);
  }
}
