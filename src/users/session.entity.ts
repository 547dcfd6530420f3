import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { Workspace } from '../auth/workspace.entity';
import { User } from './user.entity';

/** A console sign-in. The cookie carries a random token; only its SHA-256 is stored. */
@Entity('console_sessions')
@Index('IDX_console_sessions_user', ['userId'])
export class Session {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Index('UQ_console_sessions_token_hash', { unique: true })
  @Column({ type: 'char', length: 64 })
  tokenHash!: string;

  @Column({ type: 'uuid' })
  userId!: string;

  @ManyToOne(() => User, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id' })
  user?: User;

  /** The workspace the console shows; one of the user's memberships. */
  @Column({ type: 'uuid' })
  workspaceId!: string;

  @ManyToOne(() => Workspace, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'workspace_id' })
  workspace?: Workspace;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt!: Date;

  /** Idle expiry counts from here (written at most once a minute). */
  @Column({ type: 'timestamptz' })
  lastSeenAt!: Date;

  /** Absolute expiry. */
  @Column({ type: 'timestamptz' })
  expiresAt!: Date;

  @Column({ type: 'timestamptz', nullable: true })
  revokedAt!: Date | null;
}
