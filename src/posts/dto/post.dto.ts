import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { POST_STATUSES, Post, PostApproval, PostCreator, PostRejection, PostStatus } from '../post.entity';
import { PostTargetPart } from '../post-target-part.entity';
import {
  FIRST_COMMENT_STATUSES,
  FirstCommentStatus,
  PostTarget,
  TARGET_ERROR_CODES,
  TARGET_STATUSES,
  TargetErrorCode,
  TargetStatus,
} from '../post-target.entity';

export class TargetErrorDto {
  @ApiProperty({ enum: TARGET_ERROR_CODES })
  code!: TargetErrorCode;

  /** The provider's own message: why the publication failed. */
  message!: string;
}

/** A part of a thread as published on one channel. */
export class PostTargetPartDto {
  /** 0 for the post's own content, i for `thread[i - 1]`. */
  @ApiProperty({ type: 'integer', minimum: 0, example: 1 })
  index!: number;

  /** Id of the part on the network. */
  platformPostId!: string;

  /** Public URL of the part. */
  @ApiProperty({ format: 'uri' })
  url!: string;

  @ApiProperty({ format: 'date-time' })
  publishedAt!: string;
}

/** The first comment on one channel's post, and how it went. */
export class PostTargetFirstCommentDto {
  /** The text published (the channel's `targets[].firstComment`, else the post's). */
  content!: string;

  /** `pending` until the post is live and the comment went out (or while it is retried); `failed` for good. */
  @ApiProperty({ enum: FIRST_COMMENT_STATUSES })
  status!: FirstCommentStatus;

  /** Id of the comment on the network. */
  @ApiProperty({ nullable: true, type: String })
  platformId!: string | null;

  @ApiProperty({ nullable: true, type: String, format: 'uri' })
  url!: string | null;

  /** Why the last attempt failed (kept while it is retried); null once published. */
  @ApiProperty({ nullable: true, type: String })
  error!: string | null;
}

/** A follow-up part of a thread. */
export class PostThreadPartDto {
  content!: string;

  @ApiProperty({ type: [String], format: 'uuid' })
  mediaIds!: string[];
}

/** The publication of the post to one channel. */
export class PostTargetDto {
  @ApiProperty({ format: 'uuid' })
  channelId!: string;

  /** This channel's own text (`targets[].content` of the request); absent when it publishes the post's. */
  @ApiPropertyOptional()
  content?: string;

  /** This channel's own media (`targets[].mediaIds` of the request); absent when it publishes the post's. */
  @ApiPropertyOptional({ type: [String], format: 'uuid' })
  mediaIds?: string[];

  /** The network's own settings for this channel (`targets[].options` of the request); absent when none. */
  @ApiPropertyOptional({ type: 'object', additionalProperties: true })
  options?: Record<string, unknown>;

  @ApiProperty({ enum: TARGET_STATUSES })
  status!: TargetStatus;

  /** Id of the post on the network (Mastodon status id, Bluesky at:// URI); of a thread, its first part. */
  @ApiProperty({ nullable: true, type: String })
  platformPostId!: string | null;

  /** Public URL of the published post (of a thread, its first part). */
  @ApiProperty({ nullable: true, type: String, format: 'uri' })
  url!: string | null;

  @ApiProperty({ format: 'date-time', nullable: true, type: String })
  publishedAt!: string | null;

  /** Publish attempts made in the current publication. */
  attempts!: number;

  @ApiProperty({ type: TargetErrorDto, nullable: true })
  error!: TargetErrorDto | null;

  /**
   * The parts of a thread already published on this channel, in order; empty for a post without a
   * thread. A failed target lists what was published before the failure; a retry continues after it.
   */
  @ApiProperty({ type: [PostTargetPartDto] })
  parts!: PostTargetPartDto[];

  /** The first comment on this channel's post; null without one. Never changes `status`. */
  @ApiProperty({ type: PostTargetFirstCommentDto, nullable: true })
  firstComment!: PostTargetFirstCommentDto | null;
}

/** Who acted on a post: an API key (its id) or a console user (their id). */
export class PostActorRefDto {
  @ApiProperty({ enum: ['api_key', 'user'] })
  type!: 'api_key' | 'user';

  @ApiProperty({ format: 'uuid' })
  id!: string;
}

/** Who asked for a post: the API key, OAuth client (agent) or console user whose request created it. */
export class PostCreatorDto {
  /** `api_key`: a key's request; `oauth_client`: an agent's, with an OAuth access token; `user`: someone in the console. */
  @ApiProperty({ enum: ['api_key', 'oauth_client', 'user'] })
  kind!: 'api_key' | 'oauth_client' | 'user';

  /** The key's id, the OAuth client's `client_id`, or the user's id. */
  @ApiProperty({ format: 'uuid' })
  id!: string;

  /** The key's name, the OAuth client's name, or the person's email, as they were when the post was created. */
  name!: string;
}

/** The last approval of a post. */
export class PostApprovalDto {
  @ApiProperty({ format: 'date-time' })
  at!: string;

  @ApiProperty({ type: PostActorRefDto })
  by!: PostActorRefDto;

  /** Seconds past its scheduled time when approved (it then published at once); null when approved in time. */
  @ApiProperty({ type: 'integer', nullable: true })
  latenessSeconds!: number | null;
}

/** Why the post went back to draft instead of being published. */
export class PostRejectionDto {
  reason!: string;

  @ApiProperty({ format: 'date-time' })
  at!: string;

  @ApiProperty({ type: PostActorRefDto })
  by!: PostActorRefDto;
}

export class PostDto {
  @ApiProperty({ format: 'uuid' })
  id!: string;

  content!: string;

  @ApiProperty({ enum: POST_STATUSES })
  status!: PostStatus;

  @ApiProperty({ type: [String], format: 'uuid' })
  channelIds!: string[];

  @ApiProperty({ type: [String], format: 'uuid' })
  mediaIds!: string[];

  /** Follow-up parts of a thread (the post's own content is part 1); empty for a single post. */
  @ApiProperty({ type: [PostThreadPartDto] })
  thread!: PostThreadPartDto[];

  @ApiProperty({ format: 'date-time', nullable: true, type: String })
  scheduledAt!: string | null;

  /**
   * True when `queue: true` placed the post in a slot of its channels' posting schedules (`scheduledAt` is
   * that slot); false when it was scheduled at a given time, or not scheduled.
   */
  queued!: boolean;

  /** When the last target was published. */
  @ApiProperty({ format: 'date-time', nullable: true, type: String })
  publishedAt!: string | null;

  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' } })
  metadata!: Record<string, string>;

  /** Your own reference, as given at creation (null when none). */
  @ApiProperty({ type: String, nullable: true, example: 'cms-article-4711' })
  externalId!: string | null;

  /** Published as a comment on the post where the channel takes one (see each target's `firstComment`). */
  @ApiProperty({ type: String, nullable: true })
  firstComment!: string | null;

  @ApiProperty({ type: [PostTargetDto] })
  targets!: PostTargetDto[];

  /** Who asked for the post (the request's key, agent or console user); null for posts made before it was recorded. */
  @ApiProperty({ type: PostCreatorDto, nullable: true })
  createdBy!: PostCreator | null;

  /** The last approval, when the post needed one (null otherwise). */
  @ApiProperty({ type: PostApprovalDto, nullable: true })
  approval!: PostApproval | null;

  /** Set when an approver rejected the post (it is a draft again); null otherwise. */
  @ApiProperty({ type: PostRejectionDto, nullable: true })
  rejection!: PostRejection | null;

  @ApiProperty({ format: 'date-time' })
  createdAt!: string;

  @ApiProperty({ format: 'date-time' })
  updatedAt!: string;

  /** `parts`: the recorded thread parts of these targets (any order; others are ignored). */
  static from(post: Post, targets: PostTarget[], parts: PostTargetPart[] = []): PostDto {
    const ordered = [...targets].sort((a, b) => a.position - b.position);
    const partsOf = (targetId: string): PostTargetPartDto[] =>
      parts
        .filter((p) => p.targetId === targetId)
        .sort((a, b) => a.index - b.index)
        .map((p) => ({
          index: p.index,
          platformPostId: p.platformPostId,
          url: p.url,
          publishedAt: p.publishedAt.toISOString(),
        }));
    return {
      id: post.id,
      content: post.content,
      status: post.status,
      channelIds: ordered.map((t) => t.channelId),
      mediaIds: post.mediaIds,
      thread: post.thread.map((p) => ({ content: p.content, mediaIds: p.mediaIds })),
      scheduledAt: post.scheduledAt?.toISOString() ?? null,
      queued: post.queued,
      publishedAt: post.publishedAt?.toISOString() ?? null,
      metadata: post.metadata,
      externalId: post.externalId ?? null,
      firstComment: post.firstComment ?? null,
      targets: ordered.map((t) => ({
        channelId: t.channelId,
        ...(t.contentOverride !== null ? { content: t.contentOverride } : {}),
        ...(t.mediaIdsOverride !== null ? { mediaIds: t.mediaIdsOverride } : {}),
        ...(t.options !== null ? { options: t.options } : {}),
        status: t.status,
        platformPostId: t.platformPostId,
        url: t.url,
        publishedAt: t.publishedAt?.toISOString() ?? null,
        attempts: t.attempts,
        error: t.errorCode ? { code: t.errorCode, message: t.errorMessage ?? '' } : null,
        parts: partsOf(t.id),
        firstComment:
          t.firstCommentStatus && t.firstComment !== null
            ? {
                content: t.firstComment,
                status: t.firstCommentStatus,
                platformId: t.firstCommentPlatformId,
                url: t.firstCommentUrl,
                error: t.firstCommentError,
              }
            : null,
      })),
      createdBy: post.createdBy ?? null,
      approval: post.approval ?? null,
      rejection: post.rejection ?? null,
      createdAt: post.createdAt.toISOString(),
      updatedAt: post.updatedAt.toISOString(),
    };
  }
}

export class PostProblemDto {
  /** The channel whose limits the post breaks; null for problems of the post itself. */
  @ApiProperty({ format: 'uuid', nullable: true, type: String })
  channelId!: string | null;

  /**
   * `content`, `mediaIds`, `channelIds`, `scheduledAt`, `thread`, a thread part's `thread[i].content` /
   * `thread[i].mediaIds`, or a channel's override `targets[i].content` / `targets[i].mediaIds` /
   * `targets[i].options.<field>`, or a first comment's `firstComment` / `targets[i].firstComment`.
   */
  field!: string;

  message!: string;
}

export class PostValidationDto {
  valid!: boolean;

  @ApiProperty({ type: [PostProblemDto] })
  problems!: PostProblemDto[];

  /**
   * What a network advises about the post, in the shape of problems but never a refusal: `valid` does
   * not depend on them and `POST /posts` accepts the post (X: a link makes the post cost more under
   * X's pay-per-use pricing).
   */
  @ApiProperty({ type: [PostProblemDto] })
  warnings!: PostProblemDto[];
}
