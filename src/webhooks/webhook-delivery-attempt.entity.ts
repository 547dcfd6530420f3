import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { Workspace } from '../auth/workspace.entity';
import { WebhookDelivery } from './webhook-delivery.entity';
import { Webhook } from './webhook.entity';

/** The log of every HTTP attempt of a delivery (`GET /webhooks/:id/deliveries`). */
@Entity('webhook_delivery_attempts')
@Index('IDX_webhook_delivery_attempts_webhook_created', ['webhookId', 'createdAt', 'id'])
@Index('UQ_webhook_delivery_attempts_delivery_attempt', ['deliveryId', 'attempt'], { unique: true })
export class WebhookDeliveryAttempt {
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

  @Column({ type: 'uuid' })
  deliveryId!: string;

  @ManyToOne(() => WebhookDelivery, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'delivery_id' })
  delivery?: WebhookDelivery;

  @Column({ type: 'uuid' })
  eventId!: string;

  @Column({ type: 'varchar', length: 64 })
  eventType!: string;

  /** 1 for the first attempt of the delivery. */
  @Column({ type: 'integer' })
  attempt!: number;

  /** HTTP status of the answer; null when none arrived (timeout, refused, blocked). */
  @Column({ type: 'integer', nullable: true })
  statusCode!: number | null;

  @Column({ type: 'integer' })
  durationMs!: number;

  @Column({ type: 'varchar', length: 500, nullable: true })
  error!: string | null;

  @Column({ type: 'boolean' })
  succeeded!: boolean;

  @CreateDateColumn({ type: 'timestamptz', default: () => 'clock_timestamp()' })
  createdAt!: Date;
}
