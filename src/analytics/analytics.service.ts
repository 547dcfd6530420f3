import { Inject, Injectable, Logger } from '@nestjs/common';
import { ConfigType } from '@nestjs/config';
import type Redis from 'ioredis';
import type { EntityManager } from 'typeorm';
import { ChannelsService } from '../channels/channels.service';
import { AppError } from '../common/errors';
import { analyticsConfig } from '../config/analytics.config';
import { PublishedTargetsStore } from '../posts/published-targets.store';
import { REDIS } from '../redis/redis.module';
import { Figures, emptyFigures, figuresOf, sumFigures } from './analytics-figures';
import { AnalyticsQueue } from './analytics.queue';
import { TargetMetricsStore } from './target-metrics.store';
import { ChannelAnalyticsDto, ChannelAnalyticsQueryDto, ChannelDayDto } from './dto/channel-analytics.dto';
import { AnalyticsRefreshDto, PostAnalyticsDto } from './dto/post-analytics.dto';

const DAY_MS = 86_400_000;
const MAX_DAYS = 366;
const DEFAULT_DAYS = 30;

interface TargetFigures {
  channelId: string;
  figures: Figures;
  collectedAt: Date | null;
}

/** Reads of analytics (post figures, channel series) and refresh requests; the collection runs in workers. */
@Injectable()
export class AnalyticsService {
  private readonly logger = new Logger('Analytics');

  constructor(
    private readonly channels: ChannelsService,
    private readonly published: PublishedTargetsStore,
    private readonly metrics: TargetMetricsStore,
    private readonly queue: AnalyticsQueue,
    @Inject(REDIS) private readonly redis: Redis,
    @Inject(analyticsConfig.KEY) private readonly cfg: ConfigType<typeof analyticsConfig>,
  ) {}

  async getPostAnalytics(workspaceId: string, postId: string): Promise<PostAnalyticsDto> {
    if (!(await this.published.publicationOf(workspaceId, postId))) throw AppError.notFound('Post');
    return (await this.postAnalytics(null, [postId])).get(postId)!;
  }

  /**
   * A post's figures as they were collected over time (one point per snapshot of a target: a figure
   * changed), oldest first; empty for a post of another workspace or never published.
   */
  async postHistory(
    workspaceId: string,
    postId: string,
  ): Promise<Array<{ channelId: string; collectedAt: Date; figures: Figures }>> {
    if (!(await this.published.publicationOf(workspaceId, postId))) return [];
    const rows = await this.metrics.snapshotsOfPost(postId, 500);
    return rows.map((r) => ({ channelId: r.channelId, collectedAt: r.collectedAt!, figures: figuresOf(r) }));
  }

  /**
   * The analytics object of each post (GET /analytics/posts/:postId, and the `analytics.updated`
   * data), read with `em` so that the collector sees its own uncommitted writes (null: on the pool).
   * Posts without a published target get an empty object.
   */
  async postAnalytics(em: EntityManager | null, postIds: string[]): Promise<Map<string, PostAnalyticsDto>> {
    const targets = await this.published.publishedOf(em, postIds);
    const figures = await this.metrics.figuresOf(
      em,
      targets.map((t) => t.id),
    );
    const stored = new Map(figures.map((s) => [s.targetId, s]));
    const byPost = new Map<string, TargetFigures[]>(postIds.map((id) => [id, []]));
    for (const t of targets) {
      const s = stored.get(t.id);
      byPost.get(t.postId)?.push({
        channelId: t.channelId,
        figures: s ? figuresOf(s) : emptyFigures(),
        collectedAt: s?.collectedAt ?? null,
      });
    }
    const out = new Map<string, PostAnalyticsDto>();
    for (const [postId, list] of byPost) {
      const latest = list.reduce<Date | null>(
        (max, t) => (t.collectedAt && (!max || t.collectedAt > max) ? t.collectedAt : max),
        null,
      );
      out.set(postId, {
        postId,
        totals: sumFigures(list.map((t) => t.figures)),
        targets: list.map((t) => ({
          channelId: t.channelId,
          metrics: t.figures,
          collectedAt: t.collectedAt?.toISOString() ?? null,
        })),
        collectedAt: latest?.toISOString() ?? null,
      });
    }
    return out;
  }

  /**
   * Daily series by publication day (see ChannelAnalyticsDto). The channel is checked to belong to
   * the workspace first; its targets are those of the workspace's posts (a post targets only
   * channels of its own workspace).
   */
  async getChannelAnalytics(
    workspaceId: string,
    channelId: string,
    query: ChannelAnalyticsQueryDto,
  ): Promise<ChannelAnalyticsDto> {
    const { from, to } = this.range(query);
    await this.channels.get(workspaceId, channelId);
    const rows = await this.metrics.channelDays(channelId, from, new Date(to.getTime() + DAY_MS));
    const byDay = new Map(rows.map((r) => [r.day, r]));
    const days: ChannelDayDto[] = [];
    for (let t = from.getTime(); t <= to.getTime(); t += DAY_MS) {
      const date = new Date(t).toISOString().slice(0, 10);
      const row = byDay.get(date);
      days.push({ date, posts: row?.posts ?? 0, ...(row ? figuresOf(row) : emptyFigures()) });
    }
    const totals: Figures = sumFigures(days.map((d) => figuresOf(d)));
    return {
      channelId,
      from: from.toISOString().slice(0, 10),
      to: to.toISOString().slice(0, 10),
      totals: { posts: days.reduce((n, d) => n + d.posts, 0), ...totals },
      days,
    };
  }

  /**
   * Queues a collection of the post's published targets, at most once per post per cooldown
   * (429 with Retry-After otherwise). The cooldown is a Redis key set with NX+PX, shared by every
   * API instance; when Redis cannot be reached the request fails with 503 (no job could be queued anyway).
   */
  async refreshPostAnalytics(workspaceId: string, postId: string): Promise<AnalyticsRefreshDto> {
    const publication = await this.published.publicationOf(workspaceId, postId);
    if (!publication) throw AppError.notFound('Post');
    if (!publication.hasPublishedTarget)
      throw AppError.conflict('The post has no published target to read analytics from');
    const key = await this.claimRefresh(postId);
    try {
      await this.queue.enqueueCollectPost(postId);
    } catch (err) {
      this.logger.warn(`Could not queue an analytics refresh: ${(err as Error).message}`);
      await this.redis.del(key).catch(() => undefined); // let the client retry at once
      throw new AppError('SERVICE_UNAVAILABLE', 'The refresh could not be queued; try again shortly');
    }
    return { postId, status: 'queued' };
  }

  /** Takes the post's cooldown key; returns it. 429 while another refresh holds it, 503 when Redis is away. */
  private async claimRefresh(postId: string): Promise<string> {
    const key = `analytics:refresh:${postId}`;
    let claimed: boolean;
    let ttl = -1;
    try {
      claimed = (await this.redis.set(key, '1', 'PX', this.cfg.refreshCooldownMs, 'NX')) === 'OK';
      if (!claimed) ttl = await this.redis.pttl(key);
    } catch (err) {
      this.logger.warn(`Redis unavailable for an analytics refresh: ${(err as Error).message}`);
      throw new AppError('SERVICE_UNAVAILABLE', 'The refresh could not be queued; try again shortly');
    }
    if (claimed) return key;
    const retryAfter = Math.max(1, Math.ceil((ttl > 0 ? ttl : this.cfg.refreshCooldownMs) / 1000));
    throw new AppError(
      'RATE_LIMIT_EXCEEDED',
      `Analytics of this post were refreshed moments ago; retry in ${retryAfter} s`,
      undefined,
      { 'Retry-After': retryAfter },
    );
  }

  /** The requested days as UTC midnights; 400 when malformed, reversed or longer than MAX_DAYS. */
  private range(query: ChannelAnalyticsQueryDto): { from: Date; to: Date } {
    const today = new Date(new Date().toISOString().slice(0, 10));
    const to = query.to ? this.day('to', query.to) : today;
    const from = query.from ? this.day('from', query.from) : new Date(to.getTime() - (DEFAULT_DAYS - 1) * DAY_MS);
    if (from > to) {
      throw AppError.validation('from: must not be after to', [{ field: 'from', message: 'must not be after to' }]);
    }
    if ((to.getTime() - from.getTime()) / DAY_MS + 1 > MAX_DAYS) {
      throw AppError.validation(`to: the range must not exceed ${MAX_DAYS} days`, [
        { field: 'to', message: `must be at most ${MAX_DAYS - 1} days after from` },
      ]);
    }
    return { from, to };
  }

  private day(field: string, value: string): Date {
    const date = new Date(`${value}T00:00:00.000Z`);
    if (Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== value) {
      throw AppError.validation(`${field}: is not a calendar date`, [{ field, message: 'is not a calendar date' }]);
    }
    return date;
  }
}
