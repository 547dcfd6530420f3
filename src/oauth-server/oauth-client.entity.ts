import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';

/**
 * An OAuth client (an agent) registered by dynamic client registration (RFC 7591): public (no
 * secret, PKCE instead), known by its id and the exact redirect URIs it registered.
 */
@Entity('oauth_clients')
export class OAuthClient {
  /** The `client_id`. */
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  /** `client_name`, shown on the consent page and in the console's list of authorized agents. */
  @Column({ type: 'varchar', length: 100 })
  name!: string;

  /** `redirect_uris`: https, or http on a loopback address; an authorization must name one exactly. */
  @Column({ type: 'varchar', length: 2000, array: true })
  redirectUris!: string[];

  /** `client_uri`, when given (shown as text, never fetched). */
  @Column({ type: 'varchar', length: 2000, nullable: true })
  clientUri!: string | null;

  /** `software_id` and `software_version`, when given. */
  @Column({ type: 'varchar', length: 200, nullable: true })
  software!: string | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt!: Date;
}
