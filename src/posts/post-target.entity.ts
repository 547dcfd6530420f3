import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import { Channel } from '../channels/channel.entity';
import { Post } from './post.entity';

export const TARGET_STATUSES = ['pending', 'publishing', 'published', 'failed'] as const;
export type TargetStatus = (typeof TARGET_STATUSES)[number];

export const TARGET_ERROR_CODES = [
  'CREDENTIALS_REVOKED',
  'CHANNEL_DISCONNECTED',
  'CONTENT_REJECTED',
  'MEDIA_REJECTED',
  'PROVIDER_RATE_LIMITED',
  'PROVIDER_UNAVAILABLE',
  'VIDEO_PROCESSING_FAILED',
  'VIDEO_PROCESSING_TIMEOUT',
  'INTERNAL',
] as const;
export type TargetErrorCode = (typeof TARGET_ERROR_CODES)[number];

/** The publication of one post to one channel: pending -> publishing -> published | failed. */
@Entity('post_targets')
@Index('UQ_post_targets_post_channel', ['postId', 'channelId'], { unique: true })
@Index('IDX_post_targets_channel_post', ['channelId', 'postId'])
@Index('IDX_post_targets_due', ['dueAt'], { where: "status IN ('pending', 'publishing')" })
export class PostTarget {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ type: 'uuid' })
  postId!: string;

  @ManyToOne(() => Post, (p) => p.targets, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'post_id' })
  post?: Post;

  @Column({ type: 'uuid' })
  channelId!: string;

  @ManyToOne(() => Channel, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'channel_id' })
  channel?: Channel;

  /** Order of the channel in the post's channelIds. */
  @Column({ type: 'smallint' })
  position!: number;

  /** This channel's own text in place of the post's (the first part of a thread); null: the post's. */
  @Column({ type: 'text', nullable: true })
  contentOverride!: string | null;

  /** This channel's own media in place of the post's (the first part of a thread); null: the post's. */
  @Column({ type: 'uuid', array: true, nullable: true })
  mediaIdsOverride!: string[] | null;

  /**
   * The network's own settings for this channel (`targets[i].options`), validated against the
   * provider's options schema; null when none were given.
   */
  @Column({ type: 'jsonb', nullable: true })
  options!: Record<string, unknown> | null;

  @Column({ type: 'varchar', length: 16 })
  status!: TargetStatus;

  /** The post's publication this target belongs to; jobs of older publications are ignored. */
  @Column({ type: 'integer', default: 0 })
  publication!: number;

  /** When the next publish attempt is due (scheduled time, then retry times). Null for drafts. */
  @Column({ type: 'timestamptz', nullable: true })
  dueAt!: Date | null;

  /** First due time of this publication: stable across retries (Bluesky record key, createdAt). */
  @Column({ type: 'timestamptz', nullable: true })
  publicationStartedAt!: Date | null;

  /** Bull job currently holding the target while `publishing`, and until when the claim holds. */
  @Column({ type: 'varchar', length: 128, nullable: true })
  claimJobId!: string | null;

  @Column({ type: 'timestamptz', nullable: true })
  claimedUntil!: Date | null;

  @Column({ type: 'integer', default: 0 })
  attempts!: number;

  @Column({ type: 'varchar', length: 512, nullable: true })
  platformPostId!: string | null;

  @Column({ type: 'varchar', length: 2048, nullable: true })
  url!: string | null;

  @Column({ type: 'timestamptz', nullable: true })
  publishedAt!: Date | null;

  @Column({ type: 'varchar', length: 32, nullable: true })
  errorCode!: TargetErrorCode | null;

  @Column({ type: 'text', nullable: true })
  errorMessage!: string | null;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt!: Date;
}
