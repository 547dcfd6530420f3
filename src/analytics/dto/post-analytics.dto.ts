import { ApiProperty } from '@nestjs/swagger';

/** Engagement figures. A figure is null where the network does not expose it (Mastodon and Bluesky expose no impressions). */
export class MetricsDto {
  /** Mastodon favourites, Bluesky likes. */
  @ApiProperty({ type: 'integer', nullable: true, example: 12 })
  likes!: number | null;

  /** Mastodon boosts (reblogs), Bluesky reposts. */
  @ApiProperty({ type: 'integer', nullable: true, example: 3 })
  reposts!: number | null;

  @ApiProperty({ type: 'integer', nullable: true, example: 2 })
  replies!: number | null;

  /** Bluesky quotes; Mastodon only on instances that report `quotes_count`. */
  @ApiProperty({ type: 'integer', nullable: true, example: 1 })
  quotes!: number | null;

  @ApiProperty({ type: 'integer', nullable: true, example: null })
  impressions!: number | null;
}

/** The latest figures of the post on one channel. */
export class TargetAnalyticsDto {
  @ApiProperty({ format: 'uuid' })
  channelId!: string;

  /** All null until the first successful read. */
  metrics!: MetricsDto;

  /** When these figures were last read from the network (they may be unchanged since an earlier read); null before the first read. */
  @ApiProperty({ format: 'date-time', nullable: true, type: String })
  collectedAt!: string | null;
}

/**
 * Analytics of a post: the latest figures of every published target and their totals. Also the `data`
 * of the `analytics.updated` event.
 */
export class PostAnalyticsDto {
  @ApiProperty({ format: 'uuid' })
  postId!: string;

  /** Per figure, the sum of the non-null values of the targets; null when every target has null for it. */
  totals!: MetricsDto;

  /** One entry per published target, in the order of the post's channelIds. Empty until the post is published. */
  @ApiProperty({ type: [TargetAnalyticsDto] })
  targets!: TargetAnalyticsDto[];

  /** The latest `collectedAt` of the targets; null before the first read. */
  @ApiProperty({ format: 'date-time', nullable: true, type: String })
  collectedAt!: string | null;
}

/** A refresh was accepted: the figures are read from the networks in the background. */
export class AnalyticsRefreshDto {
  @ApiProperty({ format: 'uuid' })
  postId!: string;

  @ApiProperty({ enum: ['queued'] })
  status!: 'queued';
}

/** No input: send no body or an empty JSON object (unknown fields are refused). */
export class RefreshAnalyticsBodyDto {}
