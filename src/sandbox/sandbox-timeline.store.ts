import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { Page } from '../common/pagination/pagination';
import { paginate } from '../database/keyset-pagination';
import type { SandboxMedia, SandboxPostOptions, SandboxTimeline } from '../providers/sandbox/sandbox-timeline.port';
import { SandboxPost } from './sandbox-post.entity';

/** The `sandbox_posts` table: the sandbox network's timelines (the sandbox provider's SandboxTimeline port). */
@Injectable()
export class SandboxTimelineStore implements SandboxTimeline {
  constructor(@InjectRepository(SandboxPost) private readonly posts: Repository<SandboxPost>) {}

  async attempt(accountId: string, idempotencyKey: string): Promise<SandboxPost> {
    const rows: Array<{ id: string }> = await this.posts.query(
      `INSERT INTO sandbox_posts (account_id, idempotency_key, attempts) VALUES ($1, $2, 1)
       ON CONFLICT (account_id, idempotency_key) DO UPDATE SET attempts = sandbox_posts.attempts + 1
       RETURNING id`,
      [accountId, idempotencyKey],
    );
    return this.posts.findOneByOrFail({ id: rows[0].id });
  }

  async publish(
    id: string,
    content: string,
    media: SandboxMedia[],
    inReplyTo: string | null = null,
    options: SandboxPostOptions = { visibility: 'public', contentWarning: null },
  ): Promise<SandboxPost> {
    await this.posts
      .createQueryBuilder()
      .update()
      .set({ content, media, inReplyTo, options, publishedAt: () => 'clock_timestamp()' })
      .where('id = :id AND published_at IS NULL', { id })
      .execute();
    return this.posts.findOneByOrFail({ id });
  }

  async forgetAccount(accountId: string): Promise<void> {
    await this.posts.delete({ accountId });
  }

  find(accountId: string, id: string): Promise<SandboxPost | null> {
    return this.posts
      .createQueryBuilder('p')
      .where('p.id = :id AND p.account_id = :accountId AND p.published_at IS NOT NULL', { id, accountId })
      .getOne();
  }

  /** The account's timeline, newest first. */
  list(accountId: string, q: { limit: number; cursor?: string }): Promise<Page<SandboxPost>> {
    const qb = this.posts
      .createQueryBuilder('p')
      .where('p.account_id = :accountId AND p.published_at IS NOT NULL', { accountId });
    return paginate(qb, { sortColumn: 'p.published_at', idColumn: 'p.id', direction: 'DESC', ...q });
  }
}
