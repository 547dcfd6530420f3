import { Column, Entity, Index } from 'typeorm';
import { SingleUseRecord } from './single-use-record.entity';

/**
 * A finished authorization that reaches several accounts (a LinkedIn member and the pages they
 * administer), waiting for the caller to choose which become channels. Bound to the workspace that
 * started it, short-lived and single-use; the accounts with their tokens are sealed. Its
 * `redirectUri` is the authorization's, for front ends that come back after choosing.
 */
@Entity('oauth_connections')
@Index('IDX_oauth_connections_expires', ['expiresAt'])
export class OAuthConnection extends SingleUseRecord {
  /** The accounts (profile, limits, credentials) as sealed JSON (AAD: workspace and row id). */
  @Column({ type: 'text' })
  targets!: string;
}
