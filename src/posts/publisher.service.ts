import { Inject, Injectable, Logger } from '@nestjs/common';
import { ConfigType } from '@nestjs/config';
import { DataSource, EntityManager } from 'typeorm';
import { Channel } from '../channels/channel.entity';
import { ChannelsService } from '../channels/channels.service';
import { publishingConfig } from '../config';
import { EventsService } from '../events/events.service';
import { CredentialsRevokedError, ProviderError, TransientProviderError } from '../providers/provider.errors';
import { ProviderRegistry } from '../providers/provider.registry';
import { PublishMedia, PublishResult } from '../providers/social-provider.interface';
import { PostDto } from './dto/post.dto';
import { POST_MEDIA, PostMediaPort } from './post-media.port';
import { PostTarget, TargetErrorCode } from './post-target.entity';
import { Post } from './post.entity';
import { PublishQueue } from './publish.queue';

type Outcome =
  | { kind: 'published'; result: PublishResult }
  | { kind: 'failed'; code: TargetErrorCode; message: string; revoked?: boolean }
  | { kind: 'retry'; code: TargetErrorCode; message: string; retryAfterMs?: number };

/**
 * Publishes one target. Postgres is the truth: the target is claimed with a conditional UPDATE
 * (so a stale, duplicate or early job does nothing), the provider is called with an idempotency
 * key stable across retries, and the outcome, the post's final state and its event are written
 * in one transaction.
 */
@Injectable()
export class PublisherService {
  private readonly logger = new Logger('Publisher');

  constructor(
    private readonly dataSource: DataSource,
    private readonly channels: ChannelsService,
    private readonly providers: ProviderRegistry,
    private readonly events: EventsService,
    private readonly queue: PublishQueue,
    @Inject(POST_MEDIA) private readonly media: PostMediaPort,
    @Inject(publishingConfig.KEY) private readonly cfg: ConfigType<typeof publishingConfig>,
  ) {}

  async publishTarget(targetId: string, publication: number, jobId: string): Promise<void> {
    const target = await this.claim(targetId, publication, jobId);
    if (!target) return;
    const [post, channel] = await Promise.all([
      this.dataSource.getRepository(Post).findOneByOrFail({ id: target.postId }),
      this.dataSource.getRepository(Channel).findOneByOrFail({ id: target.channelId }),
    ]);
    const outcome = await this.attempt(post, channel, target);
    await this.record(target, post, channel, outcome);
  }

  /** Takes the target if it is due and not held by another live job; moves its post to `publishing`. */
  private async claim(targetId: string, publication: number, jobId: string): Promise<PostTarget | null> {
    return this.dataSource.transaction(async (em) => {
      const rows: Array<Record<string, unknown>> = await em.query(
        `UPDATE post_targets
            SET status = 'publishing', attempts = attempts + 1, claim_job_id = $3,
                claimed_until = now() + ($4 || ' milliseconds')::interval, updated_at = now()
          WHERE id = $1 AND publication = $2
            AND ((status = 'pending' AND due_at <= now() + interval '1 second')
              OR (status = 'publishing' AND (claim_job_id = $3 OR claimed_until < now())))
          RETURNING id`,
        [targetId, publication, jobId, String(this.cfg.claimMs)],
      );
      const claimed = Array.isArray(rows[0]) ? (rows[0] as unknown[]) : rows;
      if (claimed.length === 0) return null;
      const target = await em.getRepository(PostTarget).findOneByOrFail({ id: targetId });
      await em.query(
        `UPDATE posts SET status = 'publishing', updated_at = now() WHERE id = $1 AND status = 'scheduled'`,
        [target.postId],
      );
      return target;
    });
  }

  private async attempt(post: Post, channel: Channel, target: PostTarget): Promise<Outcome> {
    const credentials = channel.status === 'active' ? this.channels.credentialsOf(channel) : null;
    if (!credentials) {
      return { kind: 'failed', code: 'CHANNEL_DISCONNECTED', message: `Channel ${channel.handle} is disconnected` };
    }
    try {
      const media: PublishMedia[] = post.mediaIds.length
        ? (await this.media.findMany(post.workspaceId, post.mediaIds))
            .sort((a, b) => post.mediaIds.indexOf(a.id) - post.mediaIds.indexOf(b.id))
            .map((m) => ({ ...m, open: () => this.media.open(m.id) }))
        : [];
      if (media.length !== post.mediaIds.length) {
        return { kind: 'failed', code: 'MEDIA_REJECTED', message: 'A media item of the post no longer exists' };
      }
      const result = await this.providers.get(channel.provider).publish({
        credentials,
        content: post.content,
        media,
        idempotencyKey: `${target.id}:${target.publication}`,
        createdAt: target.publicationStartedAt ?? post.createdAt,
      });
      return { kind: 'published', result };
    } catch (err) {
      return this.classify(err);
    }
  }

  private classify(err: unknown): Outcome {
    if (err instanceof CredentialsRevokedError) {
      return { kind: 'failed', code: 'CREDENTIALS_REVOKED', message: err.message, revoked: true };
    }
    if (err instanceof TransientProviderError) {
      const retryAfterMs = err.retryAfterSeconds !== undefined ? err.retryAfterSeconds * 1000 : undefined;
      return { kind: 'retry', code: err.code, message: err.message, retryAfterMs };
    }
    if (err instanceof ProviderError) {
      const code: TargetErrorCode = err.code === 'MEDIA_REJECTED' ? 'MEDIA_REJECTED' : 'CONTENT_REJECTED';
      return { kind: 'failed', code, message: err.message };
    }
    this.logger.error({
      msg: 'Unexpected publish failure',
      err: (err as Error)?.message,
      stack: (err as Error)?.stack,
    });
    return { kind: 'retry', code: 'INTERNAL', message: 'Internal error while publishing; will retry' };
  }

  private async record(target: PostTarget, post: Post, channel: Channel, outcome: Outcome): Promise<void> {
    const maxAttempts = this.cfg.retryDelaysMs.length + 1;
    let retry: PostTarget | null = null;
    await this.dataSource.transaction(async (em) => {
      const repo = em.getRepository(PostTarget);
      const guard = { id: target.id, publication: target.publication, status: 'publishing' as const };
      if (outcome.kind === 'published') {
        await repo.update(guard, {
          status: 'published',
          platformPostId: outcome.result.platformPostId,
          url: outcome.result.url,
          publishedAt: new Date(),
          errorCode: null,
          errorMessage: null,
          claimJobId: null,
          claimedUntil: null,
        });
        if (outcome.result.credentials) await this.channels.updateCredentials(channel, outcome.result.credentials, em);
      } else if (outcome.kind === 'retry' && target.attempts < maxAttempts) {
        const delay = Math.max(this.cfg.retryDelaysMs[target.attempts - 1] ?? 0, outcome.retryAfterMs ?? 0);
        const dueAt = new Date(Date.now() + delay);
        await repo.update(guard, {
          status: 'pending',
          dueAt,
          errorCode: outcome.code,
          errorMessage: outcome.message,
          claimJobId: null,
          claimedUntil: null,
        });
        retry = { ...target, status: 'pending', dueAt };
      } else {
        await repo.update(guard, {
          status: 'failed',
          errorCode: outcome.code,
          errorMessage: outcome.message,
          claimJobId: null,
          claimedUntil: null,
        });
        if (outcome.kind === 'failed' && outcome.revoked) {
          await this.channels.disconnectInTransaction(em, channel.id, 'credentials_revoked');
        }
      }
      await this.settle(em, post.id);
    });
    if (retry) await this.queue.enqueue([retry]);
  }

  /**
   * When no target of the post is still pending or publishing, the post becomes `published`
   * (all targets published) or `failed`, and its one event of this publication is recorded.
   * The post row lock makes exactly one of the concurrent last targets do it.
   */
  private async settle(em: EntityManager, postId: string): Promise<void> {
    const post = await em.getRepository(Post).findOne({ where: { id: postId }, lock: { mode: 'pessimistic_write' } });
    if (!post || post.status !== 'publishing') return;
    const targets = await em.getRepository(PostTarget).find({ where: { postId } });
    if (targets.some((t) => t.status === 'pending' || t.status === 'publishing')) return;
    const published = targets.every((t) => t.status === 'published');
    const last = targets.reduce<Date | null>(
      (max, t) => (t.publishedAt && (!max || t.publishedAt > max) ? t.publishedAt : max),
      null,
    );
    post.status = published ? 'published' : 'failed';
    post.publishedAt = published ? last : null;
    await em.getRepository(Post).save(post);
    await this.events.record(em, {
      type: published ? 'post.published' : 'post.failed',
      workspaceId: post.workspaceId,
      data: PostDto.from(post, targets) as unknown as Record<string, unknown>,
    });
  }
}
