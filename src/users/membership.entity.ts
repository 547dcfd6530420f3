import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { Workspace } from '../auth/workspace.entity';
import { User } from './user.entity';

/** owner: everything, members included; approver: a member who also approves posts; member: all but approving. */
export const ROLES = ['owner', 'approver', 'member'] as const;
export type Role = (typeof ROLES)[number];

/** A user's place in a workspace; owners also manage members. */
@Entity('memberships')
@Index('IDX_memberships_workspace', ['workspaceId'])
export class Membership {
  @PrimaryColumn({ type: 'uuid' })
  userId!: string;

  @PrimaryColumn({ type: 'uuid' })
  workspaceId!: string;

  @ManyToOne(() => User, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id' })
  user?: User;

  @ManyToOne(() => Workspace, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'workspace_id' })
  workspace?: Workspace;

  @Column({ type: 'varchar', length: 16 })
  role!: Role;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt!: Date;
}
