import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  OneToMany,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
} from 'typeorm';
import { Workspace } from '../auth/workspace.entity';
import { PostTarget } from './post-target.entity';

export const POST_STATUSES = ['draft', 'pending_approval', 'scheduled', 'publishing', 'published', 'failed'] as const;
export type PostStatus = (typeof POST_STATUSES)[number];

/** A follow-up part of a thread: published as a reply to the part before it. */
export interface ThreadPart {
  content: string;
  mediaIds: string[];
}

/** Who approved or rejected a post: an API key or a console user. */
export interface PostActorRef {
  type: 'api_key' | 'user';
  id: string;
}

/**
 * Who asked for a post: the API key, the OAuth client (an agent) or the console user whose request
 * created it, with its name then (the key's name, the client's name, the person's email).
 */
export interface PostCreator {
  kind: 'api_key' | 'oauth_client' | 'user';
  id: string;
  name: string;
}

/** The last approval of a post (docs/adr/0034). */
export interface PostApproval {
  at: string;
  by: PostActorRef;
  /** Seconds past its scheduled time when it was approved (it then published at once); null when on time. */
  latenessSeconds: number | null;
}

/** Why a post pending approval went back to draft. */
export interface PostRejection {
  reason: string;
  at: string;
  by: PostActorRef;
}

/**
 * A post to one or more channels. States: draft -> scheduled -> publishing -> published | failed,
 * and draft -> publishing for publish-now; a post that needs an approval waits in pending_approval, which
 * an approval moves on to scheduled or publishing and a rejection back to draft. One PostTarget per channel carries the per-network outcome.
 */
@Entity('posts')
@Index('IDX_posts_workspace_created', ['workspaceId', 'createdAt', 'id'])
@Index('IDX_posts_workspace_timeline', ['workspaceId', 'timelineAt', 'id'])
@Index('IDX_posts_workspace_status_created', ['workspaceId', 'status', 'createdAt', 'id'])
@Index('UQ_posts_workspace_external_id', ['workspaceId', 'externalId'], {
  unique: true,
  where: 'external_id IS NOT NULL',
})
export class Post {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ type: 'uuid' })
  workspaceId!: string;

  @ManyToOne(() => Workspace, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'workspace_id' })
  workspace?: Workspace;

  @Column({ type: 'text' })
  content!: string;

  @Column({ type: 'varchar', length: 16 })
  status!: PostStatus;

  @Column({ type: 'uuid', array: true, default: () => "'{}'" })
  mediaIds!: string[];

  /** Parts 2, 3, ... of a thread (the post's own content and media are part 1); empty for a single post. */
  @Column({ type: 'jsonb', default: () => "'[]'" })
  thread!: ThreadPart[];

  @Column({ type: 'timestamptz', nullable: true })
  scheduledAt!: Date | null;

  /** scheduledAt, else createdAt: the key of `sort=scheduledAt` and its `from`/`to`. */
  @Column({ type: 'timestamptz' })
  timelineAt!: Date;

  @Column({ type: 'timestamptz', nullable: true })
  publishedAt!: Date | null;

  @Column({ type: 'jsonb', default: () => "'{}'" })
  metadata!: Record<string, string>;

  /** The integrator's own reference, unique per workspace when set. */
  @Column({ type: 'varchar', length: 255, nullable: true })
  externalId!: string | null;

  /** Whether `queue: true` placed it in a slot of its channels' posting schedules (see PostQueueSlot). */
  @Column({ type: 'boolean', default: false })
  queued!: boolean;

  /** The last approval (null: never approved). */
  @Column({ type: 'jsonb', nullable: true })
  approval!: PostApproval | null;

  /** The last rejection, kept while the post is a draft again (null: none, or approved since). */
  @Column({ type: 'jsonb', nullable: true })
  rejection!: PostRejection | null;
  /** Published as a comment on the post on channels that take one, unless a target overrides it; null: none. */
  @Column({ type: 'text', nullable: true })
  firstComment!: string | null;

  /** Who asked for the post; null for posts made before it was recorded. */
  @Column({ type: 'jsonb', nullable: true })
  createdBy!: PostCreator | null;

  /** Incremented each time publishing is (re)started; part of every target's idempotency key. */
  @Column({ type: 'integer', default: 0 })
  publication!: number;

  @OneToMany(() => PostTarget, (t) => t.post)
  targets?: PostTarget[];

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt!: Date;
}
