import { Column, Entity, JoinColumn, ManyToOne, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import { PostTarget } from './post-target.entity';

/**
 * What a network's adapter saved during an attempt to publish one part of one target, for the next
 * attempt of the same publication (docs/adr/0023): Threads and Instagram keep the media container
 * they created, so a retry after a lost answer reuses it instead of publishing again. Written before
 * the call whose outcome may be lost. Index 0 is the post's own content, i is `thread[i - 1]`.
 */
@Entity('post_target_checkpoints')
export class PostTargetCheckpoint {
  @PrimaryColumn({ type: 'uuid' })
  targetId!: string;

  @ManyToOne(() => PostTarget, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'target_id' })
  target?: PostTarget;

  /** The target's publication it was saved in; a new publication starts without it. */
  @PrimaryColumn({ type: 'integer' })
  publication!: number;

  @PrimaryColumn({ type: 'smallint' })
  index!: number;

  /** The adapter's state (small JSON: ids, never credentials). */
  @Column({ type: 'jsonb' })
  state!: Record<string, unknown>;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt!: Date;
}
