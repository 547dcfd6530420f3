import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { Page, paginate } from '../common/pagination/pagination';
import { EventRecord, EventType } from './event.entity';
import { EventDto } from './dto/event.dto';

/** Postgres NOTIFY channel the relay listens on; the notification is sent on commit only. */
export const EVENTS_NOTIFY_CHANNEL = 'sps_events';

export interface NewEvent {
  type: EventType;
  workspaceId: string;
  data: Record<string, unknown>;
}

/** The outbox: record events inside the caller's transaction; read the workspace's event log. */
@Injectable()
export class EventsService {
  constructor(@InjectRepository(EventRecord) private readonly events: Repository<EventRecord>) {}

  /**
   * Writes the event with the caller's EntityManager, i.e. in the caller's transaction: it exists
   * if and only if the state change commits. Nothing is pushed to Redis here.
   */
  async record(em: EntityManager, event: NewEvent): Promise<EventDto> {
    const repo = em.getRepository(EventRecord);
    const row = await repo.save(repo.create({ ...event, dispatchedAt: null }));
    await em.query('SELECT pg_notify($1, $2)', [EVENTS_NOTIFY_CHANNEL, row.id]);
    return EventDto.from(row);
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
      cursorOf: (e) => [e.createdAt.toISOString(), e.id],
    });
  }
}
