import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
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
