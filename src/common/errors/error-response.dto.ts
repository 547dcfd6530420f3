import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { HTTP_STATUS_BY_CODE } from './app-error';

export class ErrorDetailDto {
  /** The offending field, as a dotted path (`channelIds.0`, `scheduledAt`). */
  field!: string;
  /** What is wrong with it. */
  message!: string;
}

/** The one error shape of every failing response. */
export class ErrorResponseDto {
  @ApiProperty({ enum: Object.keys(HTTP_STATUS_BY_CODE), example: 'NOT_FOUND', description: 'Stable error code' })
  error!: string;

  @ApiProperty({ example: 'Post not found', description: 'Human-readable description' })
  message!: string;

  @ApiPropertyOptional({ type: [ErrorDetailDto], description: 'Per-field problems (VALIDATION_ERROR only)' })
  details?: ErrorDetailDto[];
}
