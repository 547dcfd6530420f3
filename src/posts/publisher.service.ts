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
import { POST_COLUMNS, TARGET_COLUMNS, toPost, toTarget } from './post-rows';
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
    const claimed = await this.claim(targetId, publication, jobId);
    if (!claimed) return;
    const outcome = await this.attempt(claimed.post, claimed.channel, claimed.target);
    await this.record(claimed.target, claimed.post, claimed.channel, outcome);
  }

  /**
   * One statement: takes the target if it is due and not held by another live job, moves a
   * scheduled post to `publishing`, and returns the target with its post and channel.
   */
  private async claim(
    targetId: string,
    publication: number,
    jobId: string,
  ): Promise<{ target: PostTarget; post: Post; channel: Channel } | null> {
    const rows: Array<Record<string, unknown>> = await this.dataSource.query(
      `WITH t AS (
         UPDATE post_targets
            SET status = 'publishing', attempts = attempts + 1, claim_job_id = $3,
                claimed_until = now() + ($4 || ' milliseconds')::interval, updated_at = now()
          WHERE id = $1 AND publication = $2
            AND ((status = 'pending' AND due_at <= now() + interval '1 second')
              OR (status = 'publishing' AND (claim_job_id = $3 OR claimed_until < now())))
          RETURNING ${TARGET_COLUMNS}),
       p AS (
         UPDATE posts SET status = 'publishing', updated_at = now()
          WHERE id = (SELECT post_id FROM t) AND status = 'scheduled' RETURNING id)
       SELECT row_to_json(t) AS target, row_to_json(po) AS post,
              c.provider, c.status AS channel_status, c.credentials, c.handle, c.workspace_id AS channel_workspace_id
         FROM t JOIN posts po ON po.id = t.post_id JOIN channels c ON c.id = t.channel_id`,
      [targetId, publication, jobId, String(this.cfg.claimMs)],
    );
    const r = rows[0];
    if (!r) return null;
    const target = toTarget(reviveDates(r.target as Record<string, unknown>));
    const post = toPost(reviveDates(r.post as Record<string, unknown>));
    const channel = Object.assign(new Channel(), {
      id: target.channelId,
      workspaceId: r.channel_workspace_id,
      provider: r.provider,
      status: r.channel_status,
      credentials: r.credentials,
      handle: r.handle,
    });
    return { target, post, channel };
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
      const update = (set: string, params: unknown[]) =>
        em.query(
          `UPDATE post_targets SET ${set}, claim_job_id = NULL, claimed_until = NULL, updated_at = now()
            WHERE id = $1 AND publication = $2 AND status = 'publishing'`,
          [target.id, target.publication, ...params],
        );
      if (outcome.kind === 'published') {
        await update(
          `status = 'published', platform_post_id = $3, url = $4, published_at = now(), error_code = NULL, error_message = NULL`,
          [outcome.result.platformPostId, outcome.result.url],
        );
        if (outcome.result.credentials) await this.channels.updateCredentials(channel, outcome.result.credentials, em);
      } else if (outcome.kind === 'retry' && target.attempts < maxAttempts) {
        const delay = Math.max(this.cfg.retryDelaysMs[target.attempts - 1] ?? 0, outcome.retryAfterMs ?? 0);
        const dueAt = new Date(Date.now() + delay);
        await update(`status = 'pending', due_at = $3, error_code = $4, error_message = $5`, [
          dueAt,
          outcome.code,
          outcome.message,
        ]);
        retry = Object.assign(new PostTarget(), { ...target, status: 'pending', dueAt });
      } else {
        await update(`status = 'failed', error_code = $3, error_message = $4`, [outcome.code, outcome.message]);
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
    type Row = Record<string, unknown>;
    const [postRow] = await em.query<Row[]>(`SELECT ${POST_COLUMNS} FROM posts WHERE id = $1 FOR UPDATE`, [postId]);
    if (!postRow || postRow.status !== 'publishing') return;
    const targets = (await em.query<Row[]>(`SELECT ${TARGET_COLUMNS} FROM post_targets WHERE post_id = $1`, [postId])).map(
      toTarget,
    );
    if (targets.some((t) => t.status === 'pending' || t.status === 'publishing')) return;
    const published = targets.every((t) => t.status === 'published');
    const last = targets.reduce<Date | null>(
      (max, t) => (t.publishedAt && (!max || t.publishedAt > max) ? t.publishedAt : max),
      null,
    );
    const [updated] = await em.query<[Row[], number]>(
      `UPDATE posts SET status = $2, published_at = $3, updated_at = now() WHERE id = $1 RETURNING ${POST_COLUMNS}`,
      [postId, published ? 'published' : 'failed', published ? last : null],
    );
    const post = toPost(updated[0]);
    await this.events.record(em, {
      type: published ? 'post.published' : 'post.failed',
      workspaceId: post.workspaceId,
      data: PostDto.from(post, targets) as unknown as Record<string, unknown>,
    });
  }
}

/** row_to_json gives timestamps as strings; the entities carry Dates. */
function reviveDates(row: Record<string, unknown>): Record<string, unknown> {
  for (const key of Object.keys(row)) {
    const v = row[key];
    if ((key.endsWith('_at') || key === 'claimed_until') && typeof v === 'string') row[key] = new Date(v);
  }
  return row;
}
