import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { Workspace } from '../auth/workspace.entity';
import { Channel } from '../channels/channel.entity';
import { Post } from './post.entity';

/**
 * A slot of a channel's posting schedule taken by a queued post (docs/adr/0032-posting-schedules.md).
 * The primary key (channel, instant) is what keeps two queued posts off the same slot of a channel,
 * however many are queued at once. Deleting the post frees it (cascade); a PUT of the post frees it
 * first. The post's foreign key is checked at commit, so the slot is taken before the post is written.
 */
@Entity('post_queue_slots')
@Index('IDX_post_queue_slots_post', ['postId'])
export class PostQueueSlot {
  @PrimaryColumn({ type: 'uuid' })
  channelId!: string;

  @ManyToOne(() => Channel, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'channel_id' })
  channel?: Channel;

  @PrimaryColumn({ type: 'timestamptz' })
  slotAt!: Date;

  @Column({ type: 'uuid' })
  postId!: string;

  @ManyToOne(() => Post, { onDelete: 'CASCADE', deferrable: 'INITIALLY DEFERRED' })
  @JoinColumn({ name: 'post_id' })
  post?: Post;

  @Column({ type: 'uuid' })
  workspaceId!: string;

  @ManyToOne(() => Workspace, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'workspace_id' })
  workspace?: Workspace;
}
