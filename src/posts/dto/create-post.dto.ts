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
}
