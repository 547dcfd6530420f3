import { ApiProperty } from '@nestjs/swagger';
import { POST_STATUSES, Post, PostStatus } from '../post.entity';
import { PostTarget, TARGET_ERROR_CODES, TARGET_STATUSES, TargetErrorCode, TargetStatus } from '../post-target.entity';

export class TargetErrorDto {
  @ApiProperty({ enum: TARGET_ERROR_CODES })
  code!: TargetErrorCode;

  /** The provider's own message: why the publication failed. */
  message!: string;
}

/** The publication of the post to one channel. */
export class PostTargetDto {
  @ApiProperty({ format: 'uuid' })
  channelId!: string;

  @ApiProperty({ enum: TARGET_STATUSES })
  status!: TargetStatus;

  /** Id of the post on the network (Mastodon status id, Bluesky at:// URI). */
  @ApiProperty({ nullable: true, type: String })
  platformPostId!: string | null;

  /** Public URL of the published post. */
  @ApiProperty({ nullable: true, type: String, format: 'uri' })
  url!: string | null;

  @ApiProperty({ format: 'date-time', nullable: true, type: String })
  publishedAt!: string | null;

  /** Publish attempts made in the current publication. */
  attempts!: number;

  @ApiProperty({ type: TargetErrorDto, nullable: true })
  error!: TargetErrorDto | null;
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

  @ApiProperty({ format: 'date-time', nullable: true, type: String })
  scheduledAt!: string | null;

  /** When the last target was published. */
  @ApiProperty({ format: 'date-time', nullable: true, type: String })
  publishedAt!: string | null;

  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' } })
  metadata!: Record<string, string>;

  /** Your own reference, as given at creation (null when none). */
  @ApiProperty({ type: String, nullable: true, example: 'cms-article-4711' })
  externalId!: string | null;

  @ApiProperty({ type: [PostTargetDto] })
  targets!: PostTargetDto[];

  @ApiProperty({ format: 'date-time' })
  createdAt!: string;

  @ApiProperty({ format: 'date-time' })
  updatedAt!: string;

  static from(post: Post, targets: PostTarget[]): PostDto {
    const ordered = [...targets].sort((a, b) => a.position - b.position);
    return {
      id: post.id,
      content: post.content,
      status: post.status,
      channelIds: ordered.map((t) => t.channelId),
      mediaIds: post.mediaIds,
      scheduledAt: post.scheduledAt?.toISOString() ?? null,
      publishedAt: post.publishedAt?.toISOString() ?? null,
      metadata: post.metadata,
      externalId: post.externalId ?? null,
      targets: ordered.map((t) => ({
        channelId: t.channelId,
        status: t.status,
        platformPostId: t.platformPostId,
        url: t.url,
        publishedAt: t.publishedAt?.toISOString() ?? null,
        attempts: t.attempts,
        error: t.errorCode ? { code: t.errorCode, message: t.errorMessage ?? '' } : null,
      })),
      createdAt: post.createdAt.toISOString(),
      updatedAt: post.updatedAt.toISOString(),
    };
  }
}

export class PostProblemDto {
  /** The channel whose limits the post breaks; null for problems of the post itself. */
  @ApiProperty({ format: 'uuid', nullable: true, type: String })
  channelId!: string | null;

  /** `content`, `mediaIds`, `channelIds` or `scheduledAt`. */
  field!: string;

  message!: string;
}

export class PostValidationDto {
  valid!: boolean;

  @ApiProperty({ type: [PostProblemDto] })
  problems!: PostProblemDto[];
}
