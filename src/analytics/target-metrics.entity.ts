import { Column, Entity, Index, JoinColumn, OneToOne, PrimaryColumn } from 'typeorm';
import { PostTarget } from '../posts/post-target.entity';

/**
 * The latest figures of one published target, and when it is next due for collection. One row per
 * published target, created by the first collection run after it was published. Reads (GET
 * /analytics/...) use this table only; the history lives in `analytics_snapshots`.
 */
@Entity('target_metrics')
@Index('IDX_target_metrics_post_due', ['postId', 'nextCollectAt'])
@Index('IDX_target_metrics_channel_published', ['channelId', 'publishedAt'])
export class TargetMetrics {
  @PrimaryColumn({ type: 'uuid' })
  targetId!: string;

  @OneToOne(() => PostTarget, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'target_id' })
  target?: PostTarget;

  /** Copied from the target: the post, the channel and the publication time never change once published. */
  @Column({ type: 'uuid' })
  postId!: string;

  @Column({ type: 'uuid' })
  channelId!: string;

  @Column({ type: 'timestamptz' })
  publishedAt!: Date;

  @Column({ type: 'integer', nullable: true })
  likes!: number | null;

  @Column({ type: 'integer', nullable: true })
  reposts!: number | null;

  @Column({ type: 'integer', nullable: true })
  replies!: number | null;

  @Column({ type: 'integer', nullable: true })
  quotes!: number | null;

  @Column({ type: 'integer', nullable: true })
  impressions!: number | null;

  /** The provider's own figures of the last successful read. */
  @Column({ type: 'jsonb', nullable: true })
  raw!: Record<string, unknown> | null;

  /** When the figures were last read from the network (null until the first successful read). */
  @Column({ type: 'timestamptz', nullable: true })
  collectedAt!: Date | null;

  /** When the target is next due; null once collection has stopped (30 days after publication). */
  @Column({ type: 'timestamptz', nullable: true })
  nextCollectAt!: Date | null;
}
