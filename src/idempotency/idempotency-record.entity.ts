import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { ApiKey } from '../auth/api-key.entity';

/**
 * The stored outcome of a `POST` sent with an `Idempotency-Key`, scoped to the API key. Written in
 * the same transaction as the request's effect, so it exists exactly when the effect does.
 */
@Entity('idempotency_keys')
@Index('IDX_idempotency_keys_expires_at', ['expiresAt'])
export class IdempotencyRecord {
  @PrimaryColumn({ type: 'uuid' })
  apiKeyId!: string;

  @ManyToOne(() => ApiKey, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'api_key_id' })
  apiKey?: ApiKey;

  /** The client's key, up to 255 characters. */
  @PrimaryColumn({ type: 'varchar', length: 255 })
  key!: string;

  /** SHA-256 (hex) of method, path and canonical JSON body: another request under the same key is refused. */
  @Column({ type: 'char', length: 64 })
  requestHash!: string;

  @Column({ type: 'int' })
  responseStatus!: number;

  /**
   * The response body as JSON, sealed with AES-256-GCM (SecretBox, `v1.<...>`) and bound to this row:
   * it may hold a secret shown once (a new API key, a webhook secret). Rows written before sealing
   * hold plain JSON until the pruner seals them (docs/adr/0012).
   */
  @Column({ type: 'text', nullable: true })
  responseBody!: string | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt!: Date;

  @Column({ type: 'timestamptz' })
  expiresAt!: Date;
}
