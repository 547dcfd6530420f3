import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { Workspace } from '../auth/workspace.entity';
import type { EventPayload, EventType } from './event-payloads';

/**
 * The transactional outbox: a row is written in the same transaction as the state change that
 * causes it, and the relay delivers committed rows. Also the workspace's event log (GET /events).
 */
@Entity('events')
@Index('IDX_events_workspace_created', ['workspaceId', 'createdAt', 'id'])
@Index('IDX_events_workspace_type_created', ['workspaceId', 'type', 'createdAt', 'id'])
/**
 * The relay's queue: undispatched events in the order it takes them. Keyed by creation time (not by
 * dispatched_at, NULL in every entry), so the relay reads the oldest live entries with a plain index
 * scan that stops at its batch size and marks the entries of dispatched events dead as it passes them,
 * instead of a bitmap scan visiting the heap of every event dispatched since the last vacuum.
 */
@Index('IDX_events_undispatched_created', ['createdAt'], { where: 'dispatched_at IS NULL' })
export class EventRecord {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ type: 'uuid' })
  workspaceId!: string;

  @ManyToOne(() => Workspace, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'workspace_id' })
  workspace?: Workspace;

  @Column({ type: 'varchar', length: 64 })
  type!: EventType;

  /** The payload as recorded (EventsService.record takes it typed by `type`), read back as JSON. */
  @Column({ type: 'jsonb' })
  data!: EventPayload<EventType>;

  @CreateDateColumn({ type: 'timestamptz', default: () => 'clock_timestamp()' })
  createdAt!: Date;

  /** When the relay handed the event to webhook delivery; null while pending. */
  @Column({ type: 'timestamptz', nullable: true })
  dispatchedAt!: Date | null;
}
