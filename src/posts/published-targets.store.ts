import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DataSource, EntityManager, In, Repository } from 'typeorm';
import { PostTarget } from './post-target.entity';
import { Post } from './post.entity';

/** A target that was published on its network (status `published`, with its reference). */
export interface PublishedTarget {
  id: string;
  postId: string;
  channelId: string;
  publishedAt: Date;
}

/** Where a published target lives on its network. */
export interface PublishedRef {
  id: string;
  platformPostId: string;
  url: string | null;
}

type Row = Record<string, unknown>;

/** Columns and mapper of listPublished (raw SQL; checked against the entity by test/database/row-mappings). */
export const PUBLISHED_TARGET_COLUMNS = 'id, post_id, channel_id, published_at';
export function toPublishedTarget(r: Row): PublishedTarget {
  return {
    id: r.id as string,
    postId: r.post_id as string,
    channelId: r.channel_id as string,
    publishedAt: r.published_at as Date,
  };
}

/** Columns and mapper of refsOf (raw SQL; checked against the entity by test/database/row-mappings). */
export const PUBLISHED_REF_COLUMNS = 'id, platform_post_id, url';
export function toPublishedRef(r: Row): PublishedRef {
  return { id: r.id as string, platformPostId: r.platform_post_id as string, url: (r.url as string | null) ?? null };
}

/**
 * Reads of published targets for other modules (analytics), which must not query `posts` or
 * `post_targets` themselves (docs/adr/0010). The two reads on the collection run's path are plain
 * SQL; the others use the entity metadata.
 */
@Injectable()
export class PublishedTargetsStore {
  constructor(
    private readonly dataSource: DataSource,
    @InjectRepository(Post) private readonly posts: Repository<Post>,
  ) {}

  /**
   * Published targets in id order: those published at or after `since` (all when null), of one post
   * when `postId` is set, with an id greater than `afterId` (keyset paging), at most `limit`.
   */
  async listPublished(opts: {
    since: Date | null;
    postId?: string;
    afterId?: string;
    limit: number;
  }): Promise<PublishedTarget[]> {
    const rows: Row[] = await this.dataSource.query(
      `SELECT ${PUBLISHED_TARGET_COLUMNS} FROM post_targets
        WHERE status = 'published' AND published_at IS NOT NULL AND platform_post_id IS NOT NULL
          AND ($1::timestamptz IS NULL OR published_at >= $1::timestamptz)
          AND ($2::uuid IS NULL OR post_id = $2::uuid)
          AND ($3::uuid IS NULL OR id > $3::uuid)
        ORDER BY id
        LIMIT $4`,
      [opts.since, opts.postId ?? null, opts.afterId ?? null, opts.limit],
    );
    return rows.map(toPublishedTarget);
  }

  /** The network references of these targets, by target id (targets not published are absent). */
  async refsOf(targetIds: string[]): Promise<Map<string, PublishedRef>> {
    if (targetIds.length === 0) return new Map();
    const rows: Row[] = await this.dataSource.query(
      `SELECT ${PUBLISHED_REF_COLUMNS} FROM post_targets
        WHERE id = ANY($1::uuid[]) AND status = 'published' AND platform_post_id IS NOT NULL`,
      [targetIds],
    );
    return new Map(rows.map((r) => [r.id as string, toPublishedRef(r)]));
  }

  /**
   * The published targets of these posts, by post then position, read with `em` (the caller's
   * transaction, so it sees its own writes; null: on the pool).
   */
  publishedOf(
    em: EntityManager | null,
    postIds: string[],
  ): Promise<Array<Pick<PostTarget, 'id' | 'postId' | 'channelId'>>> {
    if (postIds.length === 0) return Promise.resolve([]);
    return (em ?? this.dataSource.manager).getRepository(PostTarget).find({
      select: { id: true, postId: true, channelId: true },
      where: { postId: In(postIds), status: 'published' },
      order: { postId: 'ASC', position: 'ASC' },
    });
  }

  /** The workspace of each of these posts, read with `em`; deleted posts are absent. */
  async workspacesOf(em: EntityManager, postIds: string[]): Promise<Map<string, string>> {
    if (postIds.length === 0) return new Map();
    const rows = await em
      .getRepository(Post)
      .find({ select: { id: true, workspaceId: true }, where: { id: In(postIds) } });
    return new Map(rows.map((p) => [p.id, p.workspaceId]));
  }

  /** Null when the workspace has no such post; else whether any of its targets is published. */
  async publicationOf(workspaceId: string, postId: string): Promise<{ hasPublishedTarget: boolean } | null> {
    const row = await this.posts
      .createQueryBuilder('p')
      .select(`EXISTS (SELECT 1 FROM post_targets t WHERE t.post_id = p.id AND t.status = 'published')`, 'published')
      .where('p.id = :postId AND p.workspace_id = :workspaceId', { postId, workspaceId })
      .getRawOne<{ published: boolean }>();
    return row ? { hasPublishedTarget: row.published } : null;
  }
}
