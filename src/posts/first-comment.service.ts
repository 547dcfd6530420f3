import { Inject, Injectable, Logger } from '@nestjs/common';
import { ConfigType } from '@nestjs/config';
import { ChannelsService } from '../channels/channels.service';
import { publishingConfig } from '../config';
import { Transactions } from '../database/transactions';
import { EventsService } from '../events/events.service';
import { ChannelCredentialsService } from '../oauth/channel-credentials.service';
import { ProviderError, TransientProviderError } from '../providers/provider.errors';
import { ProviderRegistry } from '../providers/provider.registry';
import type { CommentInput, PublishResult, SocialProvider } from '../providers/social-provider.interface';
import { PostDto } from './dto/post.dto';
import { FirstCommentQueue } from './first-comment.queue';
import { ClaimedComment, CommentOutcome, FirstCommentsStore } from './first-comments.store';
import { PostTargetPartsStore } from './post-target-parts.store';
import { PostsStore } from './posts.store';

/** The idempotency key of a target's first comment in one publication. */
export function firstCommentKey(targetId: string, publication: number): string {
  return `${targetId}:${publication}:first-comment`;
}

/**
 * Publishes a target's first comment once its post is live (docs/adr/0035). The comment has its own
 * checkpoint on the target: claimed with a conditional UPDATE (a stale or duplicate job does nothing),
 * published with a key stable across retries, its outcome recorded while the job still holds it. A
 * failure is retried with the publisher's delays and never touches the target's or the post's status;
 * a comment that fails for good records `post.first_comment_failed`.
 */
@Injectable()
export class FirstCommentService {
  private readonly logger = new Logger('FirstComment');

  constructor(
    private readonly store: FirstCommentsStore,
    private readonly posts: PostsStore,
    private readonly parts: PostTargetPartsStore,
    private readonly transactions: Transactions,
    private readonly channels: ChannelsService,
    private readonly credentials: ChannelCredentialsService,
    private readonly providers: ProviderRegistry,
    private readonly events: EventsService,
    private readonly queue: FirstCommentQueue,
    @Inject(publishingConfig.KEY) private readonly cfg: ConfigType<typeof publishingConfig>,
  ) {}

  async commentTarget(targetId: string, publication: number, jobId: string): Promise<void> {
    const claimed = await this.store.claim(targetId, publication, jobId, this.cfg.claimMs);
    if (!claimed) return;
    const { target, post } = claimed;
    const channel = (await this.channels.findByIds([target.channelId])).get(target.channelId);
    let outcome: CommentOutcome;
    let refreshed: Record<string, unknown> | undefined;
    try {
      const credentials = channel ? await this.credentials.open(channel) : null;
      if (!channel || !credentials) throw new CommentFailed('The channel is disconnected');
      const result = await this.send(this.providers.get(channel.provider), {
        credentials,
        content: target.firstComment ?? '',
        post: claimed.root ?? {
          platformPostId: target.platformPostId!,
          url: target.url!,
          replyRef: target.replyRef,
        },
        idempotencyKey: firstCommentKey(target.id, target.publication),
        attempt: target.firstCommentAttempts,
        createdAt: new Date((target.publicationStartedAt ?? post.createdAt).getTime() + 999),
      });
      refreshed = result.credentials;
      outcome = { status: 'published', platformId: result.platformPostId, url: result.url, error: null, dueAt: null };
    } catch (err) {
      outcome = this.failure(claimed, err);
    }
    const recorded = await this.transactions.run(async (em) => {
      if (!(await this.store.record(em, target.id, jobId, outcome))) return false;
      if (channel && refreshed) await this.channels.updateCredentials(channel, refreshed, em);
      if (outcome.status === 'failed') {
        // The post as it is now (another of its targets may have settled it since the claim).
        const current = (await this.posts.findPost(post.workspaceId, post.id, em)) ?? post;
        const targets = await this.posts.targetsOf(post.id, em);
        const parts = await this.parts.forTargets(
          targets.map((t) => t.id),
          em,
        );
        await this.events.record(em, {
          type: 'post.first_comment_failed',
          workspaceId: post.workspaceId,
          data: PostDto.from(current, targets, parts),
        });
      }
      return true;
    });
    if (!recorded) return;
    const ids = {
      postId: post.id,
      targetId: target.id,
      channelId: target.channelId,
      attempt: target.firstCommentAttempts,
    };
    if (outcome.status === 'failed') this.logger.warn({ msg: 'First comment failed', ...ids, reason: outcome.error });
    if (outcome.status === 'pending') {
      this.logger.log({ msg: 'First comment retry scheduled', ...ids, retryAt: outcome.dueAt?.toISOString() });
      await this.queue.enqueue([
        { id: target.id, publication: target.publication, attempts: target.firstCommentAttempts, dueAt: outcome.dueAt },
      ]);
    }
  }

  /** The adapter's `comment`, else a reply to the post itself on networks that take threads. */
  private send(provider: SocialProvider, input: CommentInput): Promise<PublishResult> {
    if (provider.comment) return provider.comment(input);
    const post = input.post;
    return provider.publish({
      credentials: input.credentials,
      content: input.content,
      media: [],
      idempotencyKey: input.idempotencyKey,
      attempt: input.attempt,
      createdAt: input.createdAt,
      replyTo: { root: post, parent: post },
      checkpoint: null,
      saveCheckpoint: () => Promise.resolve(),
    });
  }

  /** A transient failure with retries left is due again later; anything else fails the comment for good. */
  private failure({ target }: ClaimedComment, err: unknown): CommentOutcome {
    const message = (err as Error)?.message ?? String(err);
    const failed: CommentOutcome = { status: 'failed', platformId: null, url: null, error: message, dueAt: null };
    if (err instanceof CommentFailed) return failed;
    // The network refused it (or the credentials): for good. An unexpected error is retried like a transient one.
    const transient = err instanceof TransientProviderError || !(err instanceof ProviderError);
    if (!transient || target.firstCommentAttempts >= this.cfg.retryDelaysMs.length + 1) return failed;
    const retryAfterMs = err instanceof TransientProviderError ? (err.retryAfterSeconds ?? 0) * 1000 : 0;
    const delay = Math.max(this.cfg.retryDelaysMs[target.firstCommentAttempts - 1] ?? 0, retryAfterMs);
    return { status: 'pending', platformId: null, url: null, error: message, dueAt: new Date(Date.now() + delay) };
  }
}

/** A comment that cannot be sent at all (its channel is gone or disconnected). */
class CommentFailed extends Error {}
