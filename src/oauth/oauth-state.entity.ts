import { Column, Entity, Index } from 'typeorm';
import { SingleUseRecord } from './single-use-record.entity';

/**
 * One authorization in progress: the state is single-use, bound to the workspace that asked, and
 * expires. Only the SHA-256 of the state is stored; the PKCE verifier is sealed.
 */
@Entity('oauth_states')
@Index('UQ_oauth_states_hash', ['stateHash'], { unique: true })
@Index('IDX_oauth_states_expires', ['expiresAt'])
export class OAuthState extends SingleUseRecord {
  /** Hex SHA-256 of the state sent to the network. */
  @Column({ type: 'varchar', length: 64 })
  stateHash!: string;

  /** The PKCE code verifier, sealed (AAD: the state row id). */
  @Column({ type: 'text' })
  codeVerifier!: string;

  /**
   * The hosted connect link the authorization was started from (connect-links' table; no foreign key:
   * a link deleted meanwhile reads as gone), or null. The callback then asks the link whether it may
   * still connect and ends on its redirect URL.
   */
  @Column({ type: 'uuid', nullable: true })
  connectLinkId!: string | null;
}
