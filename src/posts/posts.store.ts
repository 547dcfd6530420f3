import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { Page } from '../common/pagination/pagination';
import { paginate } from '../database/keyset-pagination';
import { ListPostsQueryDto } from './dto/list-posts.query.dto';
import { PostTarget } from './post-target.entity';
import { Post } from './post.entity';

/**
 * The `posts` and `post_targets` tables (owned by posts) as the API writes and reads them. Methods taking
 * an EntityManager run in the caller's transaction. The publisher's statements are PublishingStore.
 */
@Injectable()
export class PostsStore {
  constructor(
    @InjectRepository(Post) private readonly posts: Repository<Post>,
    @InjectRepository(PostTarget) private readonly targets: Repository<PostTarget>,
  ) {}

  /**
   * What the workspace did in [from, to) (usage, docs/adr/0052): posts created, and per channel its
   * targets published (by publication time) and failed (by the time they last changed, which for a
   * failed target is when it failed).
   */
  async usage(
    workspaceId: string,
    from: Date,
    to: Date,
  ): Promise<{ postsCreated: number; byChannel: Array<{ channelId: string; published: number; failed: number }> }> {
    const [created]: Array<{ n: string }> = await this.posts.query(
      'SELECT count(*) AS n FROM posts WHERE workspace_id = $1 AND created_at >= $2 AND created_at < $3',
      [workspaceId, from, to],
    );
    const rows: Array<{ channel_id: string; published: string; failed: string }> = await this.posts.query(
      `SELECT t.channel_id,
              count(*) FILTER (WHERE t.status = 'published' AND t.published_at >= $2 AND t.published_at < $3) AS published,
              count(*) FILTER (WHERE t.status = 'failed' AND t.updated_at >= $2 AND t.updated_at < $3) AS failed
         FROM post_targets t JOIN posts p ON p.id = t.post_id
        WHERE p.workspace_id = $1 AND t.status IN ('published', 'failed')
          AND ((t.published_at >= $2 AND t.published_at < $3) OR (t.updated_at >= $2 AND t.updated_at < $3))
        GROUP BY t.channel_id`,
      [workspaceId, from, to],
    );
    return {
      postsCreated: Number(created?.n ?? 0),
      byChannel: rows.map((r) => ({
        channelId: r.channel_id,
        published: Number(r.published),
        failed: Number(r.failed),
      })),
    };
  }

  /** Inserts or updates the post (by id). */
  savePost(em: EntityManager, post: Partial<Post>): Promise<Post> {
    const repo = em.getRepository(Post);
    return repo.save(repo.create(post));
  }

  /** The workspace's post, locked for the caller's transaction. */
  lockPost(em: EntityManager, workspaceId: string, id: string): Promise<Post | null> {
    return em.getRepository(Post).findOne({ where: { id, workspaceId }, lock: { mode: 'pessimistic_write' } });
  }

  async deletePost(em: EntityManager, id: string): Promise<void> {
    await em.getRepository(Post).delete({ id });
  }

  findPost(workspaceId: string, id: string, em?: EntityManager): Promise<Post | null> {
    return (em ? em.getRepository(Post) : this.posts).findOne({ where: { id, workspaceId } });
  }

  /** Keyset page on (sort column, id); the channel filter is an indexed EXISTS. */
  page(workspaceId: string, q: ListPostsQueryDto): Promise<Page<Post>> {
    const desc = q.sort.startsWith('-');
    const column = q.sort.endsWith('scheduledAt') ? 'p.timeline_at' : 'p.created_at';
    const qb = this.posts.createQueryBuilder('p').where('p.workspace_id = :workspaceId', { workspaceId });
    if (q.status) qb.andWhere('p.status = :status', { status: q.status });
    if (q.externalId) qb.andWhere('p.external_id = :externalId', { externalId: q.externalId });
    if (q.channelId) {
      qb.andWhere('EXISTS (SELECT 1 FROM post_targets t WHERE t.post_id = p.id AND t.channel_id = :channelId)', {
        channelId: q.channelId,
      });
    }
    if (q.from) qb.andWhere(`${column} >= CAST(:from AS timestamptz)`, { from: q.from });
    if (q.to) qb.andWhere(`${column} < CAST(:to AS timestamptz)`, { to: q.to });
    return paginate(qb, {
      sortColumn: column,
      idColumn: 'p.id',
      direction: desc ? 'DESC' : 'ASC',
      limit: q.limit,
      cursor: q.cursor,
    });
  }

  targetsOf(postId: string, em: EntityManager = this.targets.manager): Promise<PostTarget[]> {
    return em.getRepository(PostTarget).find({ where: { postId } });
  }

  targetsOfPosts(postIds: string[]): Promise<PostTarget[]> {
    if (postIds.length === 0) return Promise.resolve([]);
    return this.targets.createQueryBuilder('t').where('t.post_id IN (:...ids)', { ids: postIds }).getMany();
  }

  insertTargets(em: EntityManager, targets: Array<Partial<PostTarget>>): Promise<PostTarget[]> {
    const repo = em.getRepository(PostTarget);
    return repo.save(targets.map((t) => repo.create(t)));
  }

  async updateTarget(em: EntityManager, id: string, changes: Partial<PostTarget>): Promise<void> {
    // A jsonb column (options) is beyond TypeORM's deep-partial type; the columns are the entity's own.
    await em.getRepository(PostTarget).update(id, changes as QueryDeepPartialEntity<PostTarget>);
  }

  async deleteTargets(em: EntityManager, ids: string[]): Promise<void> {
    await em.getRepository(PostTarget).delete(ids);
  }
}
