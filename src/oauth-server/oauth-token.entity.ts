import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { OAuthGrant } from './oauth-grant.entity';

export type OAuthTokenKind = 'access' | 'refresh';

/**
 * An access or refresh token of a grant; only its hash is stored. A refresh token is used once: the
 * refresh marks it used and hands out a new one, and a used one presented again revokes the grant.
 */
@Entity('oauth_tokens')
@Index('IDX_oauth_tokens_grant', ['grantId'])
@Index('IDX_oauth_tokens_expires', ['expiresAt'])
export class OAuthToken {
  /** Hex SHA-256 of the token. */
  @PrimaryColumn({ type: 'char', length: 64 })
  tokenHash!: string;

  @Column({ type: 'uuid' })
  grantId!: string;

  @ManyToOne(() => OAuthGrant, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'grant_id' })
  grant?: OAuthGrant;

  @Column({ type: 'varchar', length: 8 })
  kind!: OAuthTokenKind;

  @Column({ type: 'timestamptz' })
  expiresAt!: Date;

  /** When a refresh token was exchanged for new tokens. */
  @Column({ type: 'timestamptz', nullable: true })
  usedAt!: Date | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt!: Date;
}
