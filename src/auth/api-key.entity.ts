import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { KeyEnvironment } from './api-key.format';
import { Workspace } from './workspace.entity';

export type ApiKeyKind = 'key' | 'oauth';

/** An API key; only its SHA-256 hash and a display prefix are stored. */
@Entity('api_keys')
@Index('IDX_api_keys_workspace_created', ['workspaceId', 'createdAt', 'id'])
export class ApiKey {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ type: 'uuid' })
  workspaceId!: string;

  @ManyToOne(() => Workspace, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'workspace_id' })
  workspace?: Workspace;

  @Column({ type: 'varchar', length: 100 })
  name!: string;

  /** First characters of the key, for recognising it in lists (`spk_live_AbCd1234`). */
  @Column({ type: 'varchar', length: 24 })
  prefix!: string;

  /** production, development or local; null for keys made before environments (they count as the server's own). */
  @Column({ type: 'varchar', length: 16, nullable: true })
  environment!: KeyEnvironment | null;

  /** Hex SHA-256 of the whole key. */
  @Index('UQ_api_keys_key_hash', { unique: true })
  @Column({ type: 'char', length: 64 })
  keyHash!: string;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt!: Date;

  @Column({ type: 'timestamptz', nullable: true })
  lastUsedAt!: Date | null;

  @Column({ type: 'timestamptz', nullable: true })
  expiresAt!: Date | null;

  @Column({ type: 'timestamptz', nullable: true })
  revokedAt!: Date | null;

  /** What the key may do (scopes.format.ts); `{*}` for every scope, which keys made before scopes hold. */
  @Column({ type: 'varchar', length: 32, array: true, default: () => "'{*}'" })
  scopes!: string[];

  /**
   * `key`: an API key someone holds. `oauth`: the key of an OAuth grant (docs/adr/0043), whose secret
   * nobody holds: the agent's access tokens stand for it. Key lists and the key routes show `key` only.
   */
  @Column({ type: 'varchar', length: 8, default: 'key' })
  kind!: ApiKeyKind;

  /** Per-key override of RATE_LIMIT_PER_MINUTE. */
  @Column({ type: 'integer', nullable: true })
  rateLimitPerMinute!: number | null;

  /** Per-key override of RATE_LIMIT_BURST. */
  @Column({ type: 'integer', nullable: true })
  rateLimitBurst!: number | null;
}
