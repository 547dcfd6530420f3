import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';
import { IsRfc3339 } from '../../common/validators';

/** Query of GET /channels/{id}/slots. */
export class FreeSlotsQueryDto {
  /** The earliest instant to return (RFC 3339 with a zone); default and minimum: now. */
  @ApiPropertyOptional({ format: 'date-time', example: '2099-12-01T00:00:00Z' })
  @IsOptional()
  @IsRfc3339()
  from?: string;

  /** How many free slots, 1 to 100. */
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 100, default: 10, example: 10 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100)
  limit: number = 10;
}

/** A free slot of a channel's posting schedule. */
export class FreeSlotDto {
  /** The slot's instant, UTC (RFC 3339 with `Z`). */
  @ApiProperty({ format: 'date-time', example: '2099-12-01T08:00:00.000Z' })
  at!: string;
}

/** The next free slots, earliest first (fewer than `limit` when the next 366 days hold no more). */
export class FreeSlotsDto {
  @ApiProperty({ type: [FreeSlotDto] })
  data!: FreeSlotDto[];
}
