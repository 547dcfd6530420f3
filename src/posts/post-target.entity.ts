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
  'API_VERSION_RETIRED',
  'VIDEO_PROCESSING_FAILED',
  'VIDEO_PROCESSING_TIMEOUT',
  'INTERNAL',
] as const;
export type TargetErrorCode = (typeof TARGET_ERROR_CODES)[number];

export const FIRST_COMMENT_STATUSES = ['pending', 'published', 'failed'] as const;
export type FirstCommentStatus = (typeof FIRST_COMMENT_STATUSES)[number];

/** The publication of one post to one channel: pending -> publishing -> published | failed. */
@Entity('post_targets')
@Index('UQ_post_targets_post_channel', ['postId', 'channelId'], { unique: true })
@Index('IDX_post_targets_channel_post', ['channelId', 'postId'])
@Index('IDX_post_targets_due', ['dueAt'], { where: "status IN ('pending', 'publishing')" })
@Index('IDX_post_targets_first_comment_pending', ['id'], {
  where: "first_comment_status = 'pending' AND status = 'published'",
})
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

  /** What the network needs besides the id to reply to the published post (Bluesky: its CID); null when none. */
  @Column({ type: 'jsonb', nullable: true })
  replyRef!: Record<string, string> | null;

  /**
   * The comment published on this channel's post once it is live (`targets[i].firstComment`, else the
   * post's `firstComment`); null without one. Its outcome is its own checkpoint (docs/adr/0035):
   * it never changes the target's status.
   */
  @Column({ type: 'text', nullable: true })
  firstComment!: string | null;

  /** `pending` from the moment the target is written with a comment; null without one. */
  @Column({ type: 'varchar', length: 16, nullable: true })
  firstCommentStatus!: FirstCommentStatus | null;

  @Column({ type: 'varchar', length: 512, nullable: true })
  firstCommentPlatformId!: string | null;

  @Column({ type: 'varchar', length: 2048, nullable: true })
  firstCommentUrl!: string | null;

  /** The network's reason for the last failed attempt (kept while it is retried). */
  @Column({ type: 'text', nullable: true })
  firstCommentError!: string | null;

  @Column({ type: 'integer', default: 0 })
  firstCommentAttempts!: number;

  /** When the comment's next attempt is due; null: as soon as the target is published. */
  @Column({ type: 'timestamptz', nullable: true })
  firstCommentDueAt!: Date | null;

  /** Bull job holding the comment, and until when. */
  @Column({ type: 'varchar', length: 128, nullable: true })
  firstCommentClaimJobId!: string | null;

  @Column({ type: 'timestamptz', nullable: true })
  firstCommentClaimedUntil!: Date | null;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt!: Date;
}
