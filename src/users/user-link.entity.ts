import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { Workspace } from '../auth/workspace.entity';
import type { Role } from './membership.entity';

export type UserLinkKind = 'setup' | 'invitation';

/**
 * A one-time link: `setup` creates the first owner (printed at first start), `invitation` lets
 * someone join a workspace (made by an owner or by `users:create`). Only the token's SHA-256 is stored.
 */
@Entity('user_links')
@Index('IDX_user_links_workspace', ['workspaceId', 'createdAt'])
export class UserLink {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Index('UQ_user_links_token_hash', { unique: true })
  @Column({ type: 'char', length: 64 })
  tokenHash!: string;

  @Column({ type: 'varchar', length: 16 })
  kind!: UserLinkKind;

  @Column({ type: 'uuid' })
  workspaceId!: string;

  @ManyToOne(() => Workspace, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'workspace_id' })
  workspace?: Workspace;

  /** Who may use it; null for the first-owner setup link (the person types their email). */
  @Column({ type: 'varchar', length: 254, nullable: true })
  email!: string | null;

  @Column({ type: 'varchar', length: 16 })
  role!: Role;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt!: Date;

  @Column({ type: 'timestamptz' })
  expiresAt!: Date;

  @Column({ type: 'timestamptz', nullable: true })
  usedAt!: Date | null;
}
