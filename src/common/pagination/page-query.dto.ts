import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Matches, Max, MaxLength, Min } from 'class-validator';

/** What every cursor this API issues looks like: base64url text. */
const CURSOR_PATTERN = /^[A-Za-z0-9_-]+$/;

/**
 * `limit` and `cursor` of every list endpoint. Each list's query DTO extends it (or a controller
 * takes it as is), so the OpenAPI document lists both parameters on every list operation.
 */
export class PageQueryDto {
  /** Page size, 1 to 100. */
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 100, default: 20, example: 20 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100)
  limit: number = 20;

  /** Opaque cursor: the previous page's `nextCursor`, passed back as is (base64url). Absent for the first page. */
  @ApiPropertyOptional({ type: 'string', maxLength: 512, pattern: CURSOR_PATTERN.source })
  @IsOptional()
  @IsString()
  @MaxLength(512)
  @Matches(CURSOR_PATTERN, { message: 'is not a cursor this endpoint issued' })
  cursor?: string;
}
