import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, Matches } from 'class-validator';
import { MetricsDto } from './post-analytics.dto';

const DATE = /^\d{4}-\d{2}-\d{2}$/;

export class ChannelAnalyticsQueryDto {
  /** First day of the series (UTC calendar day, inclusive). Default: 29 days before `to`. */
  @ApiPropertyOptional({ format: 'date', example: '2026-11-01' })
  @IsOptional()
  @Matches(DATE, { message: 'must be a date in the form YYYY-MM-DD' })
  from?: string;

  /** Last day of the series (UTC calendar day, inclusive). Default: today (UTC). At most 366 days after `from`. */
  @ApiPropertyOptional({ format: 'date', example: '2026-11-30' })
  @IsOptional()
  @Matches(DATE, { message: 'must be a date in the form YYYY-MM-DD' })
  to?: string;
}

/** Figures of the posts published on one day (or over the whole range), and how many posts that is. */
export class ChannelFiguresDto extends MetricsDto {
  /** Posts published on the channel in the period (its published targets). */
  @ApiProperty({ type: 'integer', example: 4 })
  posts!: number;
}

export class ChannelDayDto extends ChannelFiguresDto {
  /** The UTC calendar day. */
  @ApiProperty({ format: 'date', example: '2026-11-21' })
  date!: string;
}

/**
 * Daily series of a channel, by publication day: each day sums the latest figures of the posts
 * published on the channel that day (UTC), i.e. the engagement those posts have gathered so far,
 * not the engagement received on that day. A figure is null when no post counted in it exposes it
 * (so a day without posts has `posts: 0` and null figures). `totals` sums the days.
 */
export class ChannelAnalyticsDto {
  @ApiProperty({ format: 'uuid' })
  channelId!: string;

  /** First day of the series (inclusive). */
  @ApiProperty({ format: 'date', example: '2026-11-01' })
  from!: string;

  /** Last day of the series (inclusive). */
  @ApiProperty({ format: 'date', example: '2026-11-30' })
  to!: string;

  totals!: ChannelFiguresDto;

  /** Every day from `from` to `to`, oldest first. */
  @ApiProperty({ type: [ChannelDayDto] })
  days!: ChannelDayDto[];
}
