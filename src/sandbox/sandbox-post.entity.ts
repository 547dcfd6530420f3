import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import type { SandboxMedia, SandboxPostOptions, SandboxTimelinePost } from '../providers/sandbox/sandbox-timeline.port';

/**
 * A post on a sandbox account's timeline (the sandbox network's own storage, owned by the
 * sandbox timeline module). One row per publication (account + idempotency key): it is created at
 * the first attempt, counts attempts, and is on the timeline once `publishedAt` is set.
 */
@Entity('sandbox_posts')
@Index('UQ_sandbox_posts_account_key', ['accountId', 'idempotencyKey'], { unique: true })
@Index('IDX_sandbox_posts_timeline', ['accountId', 'publishedAt', 'id'])
export class SandboxPost implements SandboxTimelinePost {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  /** The sandbox account (the channel's `externalId`). */
  @Column({ type: 'uuid' })
  accountId!: string;

  @Column({ type: 'varchar', length: 255 })
  idempotencyKey!: string;

  /** Attempts to publish this post so far, this one included. */
  @Column({ type: 'int', default: 0 })
  attempts!: number;

  @Column({ type: 'text', default: '' })
  content!: string;

  @Column({ type: 'jsonb', default: () => "'[]'" })
  media!: SandboxMedia[];

  @Column({ type: 'uuid', nullable: true })
  inReplyTo!: string | null;

  /** The target's options it was published with (`targets[i].options`; `{}` on posts from before options). */
  @Column({ type: 'jsonb', default: () => "'{}'" })
  options!: Partial<SandboxPostOptions>;

  /** When the post appeared on the timeline; null while its attempts fail. */
  @Column({ type: 'timestamptz', nullable: true })
  publishedAt!: Date | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt!: Date;
}
