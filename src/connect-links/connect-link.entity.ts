import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { Workspace } from '../auth/workspace.entity';

/**
 * A hosted connect link (docs/adr/0055): a page on PUBLIC_BASE_URL where someone without an account
 * here connects their own social accounts to the link's workspace. The URL carries a random token;
 * only its SHA-256 is stored.
 */
@Entity('connect_links')
@Index('UQ_connect_links_token_hash', ['tokenHash'], { unique: true })
@Index('IDX_connect_links_workspace_created', ['workspaceId', 'createdAt', 'id'])
export class ConnectLink {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ type: 'uuid' })
  workspaceId!: string;

  @ManyToOne(() => Workspace, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'workspace_id' })
  workspace?: Workspace;

  /** Hex SHA-256 of the token in the link's URL. */
  @Column({ type: 'char', length: 64 })
  tokenHash!: string;

  /** Where the person is sent back, with the outcome in the query. */
  @Column({ type: 'varchar', length: 2048 })
  redirectUrl!: string;

  /** The networks the page offers, in the order it lists them. */
  @Column({ type: 'varchar', length: 32, array: true })
  providers!: string[];

  /** The platform's name, shown on the page. */
  @Column({ type: 'varchar', length: 100, nullable: true })
  brandName!: string | null;

  @Column({ type: 'timestamptz' })
  expiresAt!: Date;

  @Column({ type: 'timestamptz', nullable: true })
  revokedAt!: Date | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt!: Date;
}
