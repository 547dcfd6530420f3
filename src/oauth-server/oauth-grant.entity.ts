import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { ApiKey } from '../auth/api-key.entity';
import { Workspace } from '../auth/workspace.entity';
import { User } from '../users/user.entity';
import { OAuthClient } from './oauth-client.entity';

/**
 * What a person allowed an agent, once per approved authorization: a workspace and scopes, held by an
 * API key of kind `oauth` (auth's `api_keys`, created with the grant), so that the grant's rate limit,
 * idempotency keys, actor and revocation are a key's. Its access and refresh tokens are one family:
 * revoking the grant, or replaying a rotated refresh token, ends them all.
 */
@Entity('oauth_grants')
@Index('IDX_oauth_grants_workspace_created', ['workspaceId', 'createdAt'])
export class OAuthGrant {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ type: 'uuid' })
  clientId!: string;

  @ManyToOne(() => OAuthClient, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'client_id' })
  client?: OAuthClient;

  @Column({ type: 'uuid' })
  workspaceId!: string;

  @ManyToOne(() => Workspace, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'workspace_id' })
  workspace?: Workspace;

  /** The console user who approved it. */
  @Column({ type: 'uuid' })
  userId!: string;

  @ManyToOne(() => User, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id' })
  user?: User;

  /** The key the grant's access tokens stand for (auth's api_keys, kind `oauth`). */
  @Index('UQ_oauth_grants_api_key', { unique: true })
  @Column({ type: 'uuid' })
  apiKeyId!: string;

  @ManyToOne(() => ApiKey, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'api_key_id' })
  apiKey?: ApiKey;

  /** The scopes granted (the key's). */
  @Column({ type: 'varchar', length: 32, array: true })
  scopes!: string[];

  /** The resource (RFC 8707) the tokens are for: this service's /mcp. */
  @Column({ type: 'varchar', length: 2000 })
  resource!: string;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt!: Date;

  @Column({ type: 'timestamptz', nullable: true })
  revokedAt!: Date | null;
}
