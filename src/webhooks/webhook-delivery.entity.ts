import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
} from 'typeorm';
import { Workspace } from '../auth/workspace.entity';
import { Webhook } from './webhook.entity';

/** pending: more attempts to come; succeeded: a 2xx arrived; failed: retries exhausted; cancelled: endpoint disabled. */
export type WebhookDeliveryStatus = 'pending' | 'succeeded' | 'failed' | 'cancelled';

/**
 * One event to one endpoint: created by the relay (fan-out of an outbox event) or by
 * `POST /webhooks/:id/test`. The database is the truth of what is due; Bull jobs only wake workers.
 */
@Entity('webhook_deliveries')
@Index('UQ_webhook_deliveries_webhook_event', ['webhookId', 'eventId'], { unique: true })
@Index('IDX_webhook_deliveries_due', ['nextAttemptAt'], { where: "status = 'pending'" })
export class WebhookDelivery {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ type: 'uuid' })
  workspaceId!: string;

  @ManyToOne(() => Workspace, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'workspace_id' })
  workspace?: Workspace;

  @Column({ type: 'uuid' })
  webhookId!: string;

  @ManyToOne(() => Webhook, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'webhook_id' })
  webhook?: Webhook;

  /** The outbox event id (the `webhook-id` header); for test deliveries a fresh id of their own. */
  @Column({ type: 'uuid' })
  eventId!: string;

  @Column({ type: 'varchar', length: 64 })
  eventType!: string;

  /** The envelope of a test delivery (`webhook.test`, not an outbox event); null otherwise. */
  @Column({ type: 'jsonb', nullable: true })
  payload!: Record<string, unknown> | null;

  @Column({ type: 'varchar', length: 16 })
  status!: WebhookDeliveryStatus;

  /** Attempts started so far. */
  @Column({ type: 'integer', default: 0 })
  attempts!: number;

  /** When the next attempt is due (while pending); during an attempt, the end of its lease. */
  @Column({ type: 'timestamptz', nullable: true })
  nextAttemptAt!: Date | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt!: Date;
}
