import { Column, CreateDateColumn, Entity, JoinColumn, ManyToOne, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import { Workspace } from '../auth/workspace.entity';
import { Channel } from '../channels/channel.entity';
import type { WeeklySlot } from './slot-calendar';

/**
 * A channel's posting schedule: weekly local times in an IANA time zone, where queued posts go
 * (docs/adr/0032-posting-schedules.md). At most one per channel; slots are stored sorted and once.
 */
@Entity('posting_schedules')
export class PostingSchedule {
  @PrimaryColumn({ type: 'uuid' })
  channelId!: string;

  @ManyToOne(() => Channel, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'channel_id' })
  channel?: Channel;

  @Column({ type: 'uuid' })
  workspaceId!: string;

  @ManyToOne(() => Workspace, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'workspace_id' })
  workspace?: Workspace;

  /** IANA zone name, as the runtime's ICU data knows it (`Europe/Berlin`). */
  @Column({ type: 'varchar', length: 64 })
  timezone!: string;

  @Column({ type: 'jsonb' })
  slots!: WeeklySlot[];

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt!: Date;
}
