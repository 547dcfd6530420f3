import { Column, Entity, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { PostTarget } from './post-target.entity';

/**
 * One published part of a thread on one target: written as soon as the network accepted the part,
 * before the next part is sent, so a retry continues after it and never posts it again. Index 0 is
 * the post's own content, index i is `thread[i - 1]`. Rows exist for posts with a thread only.
 */
@Entity('post_target_parts')
export class PostTargetPart {
  @PrimaryColumn({ type: 'uuid' })
  targetId!: string;

  @ManyToOne(() => PostTarget, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'target_id' })
  target?: PostTarget;

  @PrimaryColumn({ type: 'smallint' })
  index!: number;

  @Column({ type: 'varchar', length: 512 })
  platformPostId!: string;

  @Column({ type: 'varchar', length: 2048 })
  url!: string;

  /** What the network needs besides the id to reply to this part (Bluesky: the record's CID). */
  @Column({ type: 'jsonb', nullable: true })
  replyRef!: Record<string, string> | null;

  @Column({ type: 'timestamptz' })
  publishedAt!: Date;
}
