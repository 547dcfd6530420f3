import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { Workspace } from '../auth/workspace.entity';

/**
 * One authorization in progress: the state is single-use, bound to the workspace that asked, and
 * expires. Only the SHA-256 of the state is stored; the PKCE verifier is sealed.
 */
@Entity('oauth_states')
@Index('UQ_oauth_states_hash', ['stateHash'], { unique: true })
@Index('IDX_oauth_states_expires', ['expiresAt'])
export class OAuthState {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  /** Hex SHA-256 of the state sent to the network. */
  @Column({ type: 'varchar', length: 64 })
  stateHash!: string;

  @Column({ type: 'uuid' })
  workspaceId!: string;

  @ManyToOne(() => Workspace, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'workspace_id' })
  workspace?: Workspace;

  @Column({ type: 'varchar', length: 32 })
  provider!: string;

  /** The PKCE code verifier, sealed (AAD: the state row id). */
  @Column({ type: 'text' })
  codeVerifier!: string;

  /** Where the browser goes after the callback; null shows the service's own page. */
  @Column({ type: 'varchar', length: 2048, nullable: true })
  redirectUri!: string | null;

  @Column({ type: 'timestamptz' })
  expiresAt!: Date;

  /** Set when the callback consumed the state (a second use is refused). */
  @Column({ type: 'timestamptz', nullable: true })
  usedAt!: Date | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt!: Date;
}
