import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { Workspace } from '../auth/workspace.entity';
import { User } from '../users/user.entity';
import { OAuthClient } from './oauth-client.entity';

/**
 * An authorization code between the consent page and the token endpoint: single-use, short-lived,
 * bound to its client, redirect URI and PKCE challenge. Only its hash is stored. Once exchanged it
 * names the grant it made, so a replayed code revokes that grant (RFC 6749 section 4.1.2).
 */
@Entity('oauth_authorization_codes')
@Index('IDX_oauth_authorization_codes_expires', ['expiresAt'])
export class OAuthAuthorizationCode {
  /** Hex SHA-256 of the code. */
  @PrimaryColumn({ type: 'char', length: 64 })
  codeHash!: string;

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

  @Column({ type: 'uuid' })
  userId!: string;

  @ManyToOne(() => User, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id' })
  user?: User;

  @Column({ type: 'varchar', length: 2000 })
  redirectUri!: string;

  /** The S256 `code_challenge` (base64url of a SHA-256). */
  @Column({ type: 'varchar', length: 128 })
  codeChallenge!: string;

  @Column({ type: 'varchar', length: 32, array: true })
  scopes!: string[];

  @Column({ type: 'varchar', length: 2000 })
  resource!: string;

  @Column({ type: 'timestamptz' })
  expiresAt!: Date;

  @Column({ type: 'timestamptz', nullable: true })
  usedAt!: Date | null;

  /** The grant the exchange made. */
  @Column({ type: 'uuid', nullable: true })
  grantId!: string | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt!: Date;
}
