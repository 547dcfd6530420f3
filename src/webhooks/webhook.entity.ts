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
import type { EventType } from '../events/event-payloads';

/** Why the service disabled an endpoint: it answered 410 Gone, or every attempt failed for 5 days. */
export type WebhookDisabledReason = 'gone' | 'failing';
export const WEBHOOK_DISABLED_REASONS: WebhookDisabledReason[] = ['gone', 'failing'];

/** A webhook subscription. The signing secret is sealed with AES-256-GCM and shown only at creation/rotation. */
@Entity('webhooks')
@Index('IDX_webhooks_workspace_created', ['workspaceId', 'createdAt', 'id'])
export class Webhook {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ type: 'uuid' })
  workspaceId!: string;

  @ManyToOne(() => Workspace, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'workspace_id' })
  workspace?: Workspace;

  @Column({ type: 'varchar', length: 2048 })
  url!: string;

  /** Subscribed event types; empty = every type (including types added later). */
  @Column({ type: 'varchar', length: 64, array: true })
  events!: EventType[];

  @Column({ type: 'varchar', length: 500, nullable: true })
  description!: string | null;

  @Column({ type: 'boolean', default: true })
  enabled!: boolean;

  @Column({ type: 'varchar', length: 16, nullable: true })
  disabledReason!: WebhookDisabledReason | null;

  /** `v1.<base64url>` sealed `whsec_...` secret. */
  @Column({ type: 'text' })
  secret!: string;

  /** The secret before the last rotation, still signed with until `previousSecretExpiresAt`. */
  @Column({ type: 'text', nullable: true })
  previousSecret!: string | null;

  @Column({ type: 'timestamptz', nullable: true })
  previousSecretExpiresAt!: Date | null;

  @Column({ type: 'timestamptz', nullable: true })
  secretRotatedAt!: Date | null;

  /** Start of the current run of failed attempts; null after a success. */
  @Column({ type: 'timestamptz', nullable: true })
  failingSince!: Date | null;

  /** When the last replay was requested (POST /webhooks/{id}/replay is rate-limited per endpoint). */
  @Column({ type: 'timestamptz', nullable: true })
  lastReplayAt!: Date | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt!: Date;
}
