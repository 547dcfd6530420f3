import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { PostTarget } from '../posts/post-target.entity';

/**
 * The figures of one published target at one collection time. A row is written only when a figure
 * changed since the previous read (the first read counts when any figure is non-zero).
 */
@Entity('analytics_snapshots')
@Index('IDX_analytics_snapshots_target_collected', ['targetId', 'collectedAt'])
@Index('IDX_analytics_snapshots_post_collected', ['postId', 'collectedAt'])
@Index('IDX_analytics_snapshots_channel_collected', ['channelId', 'collectedAt'])
export class AnalyticsSnapshot {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ type: 'uuid' })
  targetId!: string;

  @ManyToOne(() => PostTarget, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'target_id' })
  target?: PostTarget;

  @Column({ type: 'uuid' })
  postId!: string;

  @Column({ type: 'uuid' })
  channelId!: string;

  @Column({ type: 'timestamptz' })
  collectedAt!: Date;

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

  /** The provider's own figures as received. */
  @Column({ type: 'jsonb' })
  raw!: Record<string, unknown>;
}
