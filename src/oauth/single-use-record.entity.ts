import { Column, CreateDateColumn, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { Workspace } from '../auth/workspace.entity';

/**
 * The columns of a short-lived, single-use record of the OAuth flow, bound to the workspace that
 * started it: an authorization in progress (OAuthState) and one waiting for accounts to be chosen
 * (OAuthConnection). Each entity keeps its own table and indexes.
 */
export abstract class SingleUseRecord {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ type: 'uuid' })
  workspaceId!: string;

  @ManyToOne(() => Workspace, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'workspace_id' })
  workspace?: Workspace;

  @Column({ type: 'varchar', length: 32 })
  provider!: string;

  /** Where the browser goes after the flow; null shows the service's own page. */
  @Column({ type: 'varchar', length: 2048, nullable: true })
  redirectUri!: string | null;

  @Column({ type: 'timestamptz' })
  expiresAt!: Date;

  /** Set when the record was used (a second use is refused). */
  @Column({ type: 'timestamptz', nullable: true })
  usedAt!: Date | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt!: Date;
}
