import type { SchemaObject } from '@nestjs/swagger';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsBoolean,
  IsObject,
  IsOptional,
  IsString,
  IsUUID,
  Length,
  MaxLength,
  ValidateNested,
} from 'class-validator';
import { IsRfc3339 } from '../../common/validators';
import { IsStringMap } from './string-map.validator';

/**
 * The date of the scheduling examples: far enough ahead that it does not pass while the document is in
 * use; the example says to choose one's own time.
 */
const FAR_FUTURE = '2099-12-01T09:00:00Z';

/** Most follow-up parts of a thread (so a thread has at most 25 parts with the post's own). */
export const MAX_THREAD_PARTS = 24;

/** A follow-up part of a thread: published as a reply to the part before it. */
export class ThreadPartDto {
  /** The part's text; checked against every target channel's limits like the post's own. */
  @ApiProperty({ example: 'And here is why it matters.' })
  @IsString()
  @MaxLength(100_000)
  content!: string;

  /** Media items of this part (`ready` media of this workspace), in order. */
  @ApiPropertyOptional({ type: [String], format: 'uuid', maxItems: 10 })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(10)
  @ArrayUnique()
  @IsUUID('all', { each: true, message: 'each value must be a UUID' })
  mediaIds?: string[];
}

/**
 * What one channel publishes in place of the post's own `content` and `mediaIds` (the first part of a
 * thread; the other parts stay shared). A field left out keeps the post's.
 */
export class TargetOverrideDto {
  /** One of the post's `channelIds`; each channel at most once. */
  @ApiProperty({ format: 'uuid' })
  @IsUUID('all', { message: 'must be a UUID' })
  channelId!: string;

  /** This channel's text; checked against its limits (problems name `targets[i].content`). */
  @ApiPropertyOptional({ example: 'Short version for this network #launch' })
  @IsOptional()
  @IsString()
  @MaxLength(100_000)
  content?: string;

  /** This channel's media (`ready` media of this workspace), in order; `[]` publishes it without media. */
  @ApiPropertyOptional({ type: [String], format: 'uuid', maxItems: 10 })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(10)
  @ArrayUnique()
  @IsUUID('all', { each: true, message: 'each value must be a UUID' })
  mediaIds?: string[];

  /**
   * The network's own settings for this channel, checked against the JSON Schema its provider lists as
   * `optionsSchema` in `GET /providers` (problems name `targets[i].options.<field>`). A network without
   * a schema takes none. On `PUT`, replaced with the rest of the entry.
   */
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    example: { visibility: 'unlisted', contentWarning: 'Spoilers for the finale' },
  })
  @IsOptional()
  @IsObject()
  options?: Record<string, unknown>;

  /**
   * This channel's first comment in place of the post's `firstComment` (`""`: none on this channel);
   * checked like the post's (problems name `targets[i].firstComment`).
   */
  @ApiPropertyOptional({ example: 'Sources and credits: https://example.com/launch' })
  @IsOptional()
  @IsString()
  @MaxLength(100_000)
  firstComment?: string;
}

/** Body of POST /posts, PUT /posts/{id} and POST /posts/validate. */
export class CreatePostDto {
  /** The text of the post; checked against every target channel's limits. */
  @ApiProperty({ example: 'Hello from the Social Publishing Service #launch' })
  @IsString()
  @MaxLength(100_000)
  content!: string;

  /** Channels to publish to (active channels of this workspace). */
  @ApiProperty({ type: [String], format: 'uuid', minItems: 1, maxItems: 20 })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(20)
  @ArrayUnique()
  @IsUUID('all', { each: true, message: 'each value must be a UUID' })
  channelIds!: string[];

  /** Media items to attach (`ready` media of this workspace), in order. */
  @ApiPropertyOptional({ type: [String], format: 'uuid', maxItems: 10 })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(10)
  @ArrayUnique()
  @IsUUID('all', { each: true, message: 'each value must be a UUID' })
  mediaIds?: string[];

  /**
   * Follow-up parts that make the post a thread: the post's own `content` and `mediaIds` are part 1,
   * `thread[0]` is part 2 (a reply to part 1), and so on. Only for channels whose `limits.threads` is
   * true; every part is checked against every channel's limits (problems name `thread[i].content`).
   */
  @ApiPropertyOptional({ type: [ThreadPartDto], maxItems: MAX_THREAD_PARTS })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MAX_THREAD_PARTS)
  @IsObject({ each: true, message: 'each part must be an object {content, mediaIds?}' })
  @ValidateNested({ each: true })
  @Type(() => ThreadPartDto)
  thread?: ThreadPartDto[];

  /**
   * Per-channel content and settings: a channel listed here publishes its own `content` and/or
   * `mediaIds` instead of the post's (thread parts stay shared), with its network's `options`. Each `channelId` must be one of `channelIds`, once. On
   * `PUT`, the list replaces the post's overrides (left out: none).
   */
  @ApiPropertyOptional({ type: [TargetOverrideDto], maxItems: 20 })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(20)
  @IsObject({
    each: true,
    message: 'each entry must be an object {channelId, content?, mediaIds?, options?, firstComment?}',
  })
  @ValidateNested({ each: true })
  @Type(() => TargetOverrideDto)
  targets?: TargetOverrideDto[];

  /**
   * Published as a comment (a reply) on the post once it is live, on every channel whose
   * `limits.firstComment` is true (refused on the others), checked against the channel's text limit.
   * Its outcome is the target's `firstComment`: a failed comment never fails the post.
   */
  @ApiPropertyOptional({ example: 'Read more: https://example.com/launch #launch' })
  @IsOptional()
  @IsString()
  @MaxLength(100_000)
  firstComment?: string;

  /** Publish at this time (RFC 3339 with `Z` or an offset, in the future). */
  @ApiPropertyOptional({ format: 'date-time', example: FAR_FUTURE })
  @IsOptional()
  @IsRfc3339()
  scheduledAt?: string;

  /**
   * Schedule the post at the earliest instant that is a slot of every channel's posting schedule
   * (`PUT /channels/{id}/schedule`) and free on all of them, within 60 days. Not with `scheduledAt` or
   * `publishNow`. On `PUT`, queues the post again (it may keep its slot).
   */
  @IsOptional()
  @IsBoolean()
  queue?: boolean;

  /** Publish at once. Neither this, `scheduledAt` nor `queue`: the post is a draft. */
  @IsOptional()
  @IsBoolean()
  publishNow?: boolean;

  /** Your own string key/values, returned as given (at most 50 keys). */
  @ApiPropertyOptional({ type: 'object', additionalProperties: { type: 'string' }, example: { campaign: 'launch' } })
  @IsOptional()
  @IsObject()
  @IsStringMap()
  metadata?: Record<string, string>;

  /**
   * Your own reference for this post (for example the id in your system), unique in the workspace:
   * find the post again with `GET /posts?externalId=`. Another post with it answers 409.
   */
  @ApiPropertyOptional({ example: 'cms-article-4711', minLength: 1, maxLength: 255 })
  @IsOptional()
  @IsString()
  @Length(1, 255)
  externalId?: string;
}

/** A channel id to replace with one of yours; the examples say so. */
const EXAMPLE_CHANNEL = '0b6a4c3e-5f1d-4e8a-9c2b-7d3f1e6a9b40';
const EXAMPLE_CHANNEL_2 = '7c1e2d3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f';
const EXAMPLE_MEDIA = '5e2d8f7a-1c3b-4d6e-8f9a-0b1c2d3e4f50';
const USE_YOUR_CHANNEL =
  'Replace the channel id with one of yours: `POST /channels` answered it (connect a sandbox channel to try), ' +
  '`GET /channels` lists them.';

/**
 * Request examples. The first is what Swagger UI pre-fills: it runs as is once its channel id is one of
 * yours (no date that will pass). The scheduled one's date is only a shape: choose your own future time.
 */
export const CREATE_POST_EXAMPLES = {
  publishNow: {
    summary: 'Publish at once',
    description: USE_YOUR_CHANNEL,
    value: {
      content: 'Hello from the Social Publishing Service #launch',
      channelIds: [EXAMPLE_CHANNEL],
      publishNow: true,
      metadata: { campaign: 'launch' },
    },
  },
  scheduled: {
    summary: 'Schedule a post',
    description: `Set \`scheduledAt\` to your own future time (RFC 3339 with a zone; a past one answers 400). ${USE_YOUR_CHANNEL}`,
    value: {
      content: 'Hello from the Social Publishing Service #launch',
      channelIds: [EXAMPLE_CHANNEL],
      scheduledAt: FAR_FUTURE,
      metadata: { campaign: 'launch' },
    },
  },
  withImage: {
    summary: 'Publish at once, with an image',
    description:
      'Replace the media id with one of yours: upload first (`POST /media/upload/initialize`, chunks, ' +
      `finalize, or \`POST /media/upload/url\`) and use the \`id\` of the ready item. ${USE_YOUR_CHANNEL}`,
    value: {
      content: 'Live now!',
      channelIds: [EXAMPLE_CHANNEL],
      mediaIds: [EXAMPLE_MEDIA],
      publishNow: true,
    },
  },
  overrides: {
    summary: 'Publish with a shorter text on one channel',
    description: `Replace both channel ids with two of yours. ${USE_YOUR_CHANNEL}`,
    value: {
      content: 'We shipped per-channel content today: one post, the right words for each network.',
      channelIds: [EXAMPLE_CHANNEL, EXAMPLE_CHANNEL_2],
      targets: [{ channelId: EXAMPLE_CHANNEL_2, content: 'Per-channel content is here.' }],
      publishNow: true,
    },
  },
  firstComment: {
    summary: 'Publish with a first comment',
    description: `The channel must take first comments (\`limits.firstComment\`). ${USE_YOUR_CHANNEL}`,
    value: {
      content: 'We shipped first comments today #launch',
      channelIds: [EXAMPLE_CHANNEL],
      firstComment: 'The details: https://example.com/first-comments',
      publishNow: true,
    },
  },
  thread: {
    summary: 'Publish a thread of three',
    description: USE_YOUR_CHANNEL,
    value: {
      content: 'We shipped threads today. A short tour (1/3)',
      channelIds: [EXAMPLE_CHANNEL],
      thread: [
        { content: 'Each part is published as a reply to the one before (2/3)' },
        { content: 'And a failed part is retried without posting the others again (3/3)' },
      ],
      publishNow: true,
    },
  },
  queue: {
    summary: "Queue it in the channel's next free slot",
    description: `The channel needs a posting schedule (\`PUT /channels/{id}/schedule\`). ${USE_YOUR_CHANNEL}`,
    value: { content: 'Tips for the week ahead', channelIds: [EXAMPLE_CHANNEL], queue: true },
  },
  draft: {
    summary: 'Keep a draft',
    description: USE_YOUR_CHANNEL,
    value: { content: 'Ideas for next week', channelIds: [EXAMPLE_CHANNEL] },
  },
};

/**
 * What the document states of `queue` (the `not` of CreatePostDto's schema): `queue: true` with
 * `scheduledAt` or `publishNow: true` is refused (400 naming `queue`), as PostsService's timing check does.
 */
export const SEND_OUT_CONFLICT: SchemaObject = {
  required: ['queue'],
  properties: { queue: { enum: [true] } },
  anyOf: [
    { required: ['scheduledAt'], properties: { scheduledAt: { type: 'string' } } },
    { required: ['publishNow'], properties: { publishNow: { enum: [true] } } },
  ],
};
