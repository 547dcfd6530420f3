import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
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
} from 'class-validator';
import { IsRfc3339 } from '../../common/validators';
import { IsStringMap } from './string-map.validator';

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

  /** Publish at this time (RFC 3339 with `Z` or an offset, in the future). */
  @ApiPropertyOptional({ format: 'date-time', example: '2026-12-01T09:00:00Z' })
  @IsOptional()
  @IsRfc3339()
  scheduledAt?: string;

  /** Publish at once. Neither this nor `scheduledAt`: the post is a draft. */
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

const EXAMPLE_CHANNEL = '0b6a4c3e-5f1d-4e8a-9c2b-7d3f1e6a9b40';

/** Request examples: the first is what Swagger UI pre-fills, so it must be a valid body on its own. */
export const CREATE_POST_EXAMPLES = {
  scheduled: {
    summary: 'Schedule a post',
    value: {
      content: 'Hello from the Social Publishing Service #launch',
      channelIds: [EXAMPLE_CHANNEL],
      scheduledAt: '2026-12-01T09:00:00Z',
      metadata: { campaign: 'launch' },
    },
  },
  publishNow: {
    summary: 'Publish at once, with an image',
    value: {
      content: 'Live now!',
      channelIds: [EXAMPLE_CHANNEL],
      mediaIds: ['5e2d8f7a-1c3b-4d6e-8f9a-0b1c2d3e4f50'],
      publishNow: true,
    },
  },
  draft: { summary: 'Keep a draft', value: { content: 'Ideas for next week', channelIds: [EXAMPLE_CHANNEL] } },
};
