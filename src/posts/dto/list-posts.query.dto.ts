import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, IsUUID, Length } from 'class-validator';
import { PageQueryDto } from '../../common/pagination/pagination';
import { IsRfc3339 } from '../../common/validators';
import { POST_STATUSES, PostStatus } from '../post.entity';

export const POST_SORTS = ['createdAt', '-createdAt', 'scheduledAt', '-scheduledAt'] as const;
export type PostSort = (typeof POST_SORTS)[number];

export class ListPostsQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ enum: POST_STATUSES })
  @IsOptional()
  @IsIn(POST_STATUSES)
  status?: PostStatus;

  /** Only posts targeting this channel. */
  @ApiPropertyOptional({ format: 'uuid' })
  @IsOptional()
  @IsUUID('all', { message: 'must be a UUID' })
  channelId?: string;

  /** Only the post with this `externalId` (your own reference). */
  @ApiPropertyOptional({ minLength: 1, maxLength: 255 })
  @IsOptional()
  @IsString()
  @Length(1, 255)
  externalId?: string;

  /** Inclusive lower bound on the sort time (createdAt, or scheduledAt for sort=scheduledAt). */
  @ApiPropertyOptional({ format: 'date-time' })
  @IsOptional()
  @IsRfc3339()
  from?: string;

  /** Exclusive upper bound on the sort time. */
  @ApiPropertyOptional({ format: 'date-time' })
  @IsOptional()
  @IsRfc3339()
  to?: string;

  /**
   * Order; `-` means descending. Default `-createdAt`. `scheduledAt` orders posts without a
   * schedule by their creation time.
   */
  @ApiPropertyOptional({ enum: POST_SORTS, default: '-createdAt' })
  @IsOptional()
  @IsIn(POST_SORTS)
  sort: PostSort = '-createdAt';
}
