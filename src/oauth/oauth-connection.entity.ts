import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { Workspace } from '../auth/workspace.entity';

/**
 * A finished authorization that reaches several accounts (a LinkedIn member and the pages they
 * administer), waiting for the caller to choose which become channels. Bound to the workspace that
 * started it, short-lived and single-use; the accounts with their tokens are sealed.
 */
@Entity('oauth_connections')
@Index('IDX_oauth_connections_expires', ['expiresAt'])
export class OAuthConnection {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ type: 'uuid' })
  workspaceId!: string;

  @ManyToOne(() => Workspace, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'workspace_id' })
  workspace?: Workspace;

  @Column({ type: 'varchar', length: 32 })
  provider!: string;

  /** The accounts (profile, limits, credentials) as sealed JSON (AAD: workspace and row id). */
  @Column({ type: 'text' })
  targets!: string;

  /** The redirectUri of the authorization, for front ends that come back after choosing. */
  @Column({ type: 'varchar', length: 2048, nullable: true })
  redirectUri!: string | null;

  @Column({ type: 'timestamptz' })
  expiresAt!: Date;

  /** Set when channels were created from it (a second use is refused). */
  @Column({ type: 'timestamptz', nullable: true })
  usedAt!: Date | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt!: Date;
}
