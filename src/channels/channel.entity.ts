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
import type { ProviderId } from '../providers/provider.list';
import type { ChannelLimits } from '../providers/social-provider.interface';
import { Workspace } from '../auth/workspace.entity';

export type ChannelStatus = 'active' | 'disconnected';
export type DisconnectReason = 'user_request' | 'credentials_revoked';

/** A connected social account. Credentials are sealed with AES-256-GCM and never leave the service. */
@Entity('channels')
@Index('UQ_channels_account', ['workspaceId', 'provider', 'externalId'], { unique: true })
@Index('IDX_channels_workspace_created', ['workspaceId', 'createdAt', 'id'])
@Index('IDX_channels_credentials_group', ['credentialsGroup'])
export class Channel {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ type: 'uuid' })
  workspaceId!: string;

  @ManyToOne(() => Workspace, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'workspace_id' })
  workspace?: Workspace;

  @Column({ type: 'varchar', length: 32 })
  provider!: ProviderId;

  /** The account's stable id on the provider (Mastodon `host:id`, Bluesky DID). */
  @Column({ type: 'varchar', length: 255 })
  externalId!: string;

  @Column({ type: 'varchar', length: 255 })
  name!: string;

  @Column({ type: 'varchar', length: 255 })
  handle!: string;

  @Column({ type: 'varchar', length: 2048, nullable: true })
  avatarUrl!: string | null;

  @Column({ type: 'varchar', length: 2048, nullable: true })
  profileUrl!: string | null;

  @Column({ type: 'varchar', length: 16 })
  status!: ChannelStatus;

  @Column({ type: 'jsonb' })
  limits!: ChannelLimits;

  /** `v1.<base64url>` sealed JSON; null once disconnected (wiped). */
  @Column({ type: 'text', nullable: true })
  credentials!: string | null;

  /**
   * Channels connected by one OAuth authorization (a LinkedIn member and the pages they administer)
   * share its tokens: a refresh of one updates all of them, under one lock. Null: tokens of its own.
   */
  @Column({ type: 'uuid', nullable: true })
  credentialsGroup!: string | null;

  @Column({ type: 'varchar', length: 32, nullable: true })
  disconnectReason!: DisconnectReason | null;

  @Column({ type: 'timestamptz' })
  connectedAt!: Date;

  @Column({ type: 'timestamptz', nullable: true })
  disconnectedAt!: Date | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt!: Date;
}
