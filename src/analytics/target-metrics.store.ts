import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import type { PublishedTarget } from '../posts/published-targets.store';
import { Figures, METRIC_KEYS, MetricKey } from './analytics-figures';
import { COLLECT_FOR_MS } from './collection-cadence';

type Row = Record<string, unknown>;

/** A target_metrics row as the collection run needs it to find what to read. */
export interface MetricsTarget {
  targetId: string;
  postId: string;
  channelId: string;
  publishedAt: Date;
}

/** The stored figures of a target (all null before the first read) and when they were read. */
export type StoredFigures = Record<MetricKey, number | null> & { targetId: string; collectedAt: Date | null };

/** New figures of a target, as written by a collection run. */
export interface FiguresWrite {
  target: MetricsTarget;
  figures: Figures;
  raw: Record<string, unknown>;
  at: Date;
  next: Date | null;
}

/** Aggregates of one publication day of a channel (sums come back as strings from `pg`). */
export type DayRow = Record<MetricKey, string | null> & { day: string; posts: number };

/** Columns and mapper of the due targets (raw SQL; checked against the entity by test/database/row-mappings). */
export const METRICS_TARGET_COLUMNS = 'target_id, post_id, channel_id, published_at';
export function toMetricsTarget(r: Row): MetricsTarget {
  return {
    targetId: r.target_id as string,
    postId: r.post_id as string,
    channelId: r.channel_id as string,
    publishedAt: r.published_at as Date,
  };
}

/** Columns and mapper of the stored figures (raw SQL; checked against the entity by test/database/row-mappings). */
export const STORED_FIGURES_COLUMNS = 'target_id, likes, reposts, replies, quotes, impressions, collected_at';
export function toStoredFigures(r: Row): StoredFigures {
  return {
    targetId: r.target_id as string,
    likes: r.likes as number | null,
    reposts: r.reposts as number | null,
    replies: r.replies as number | null,
    quotes: r.quotes as number | null,
    impressions: r.impressions as number | null,
    collectedAt: (r.collected_at as Date | null) ?? null,
  };
}

/** Columns written by insertSnapshots and updateFigures (checked against the entities by test/database/row-mappings). */
export const SNAPSHOT_INSERT_COLUMNS =
  'target_id, post_id, channel_id, collected_at, likes, reposts, replies, quotes, impressions, raw';
export const FIGURES_UPDATE_COLUMNS =
  'target_id, likes, reposts, replies, quotes, impressions, raw, collected_at, next_collect_at';

/**
 * The SQL of analytics' own tables (`target_metrics`, `analytics_snapshots`). Collection writes in
 * batches with `unnest` (one statement per kind of write per batch), which is why it is plain SQL
 * (docs/adr/0010); the row mappers above are held to the entities by a test.
 */
@Injectable()
export class TargetMetricsStore {
  constructor(private readonly dataSource: DataSource) {}

  /** The latest publication time among known targets (null when none is known yet). */
  async latestPublishedAt(): Promise<Date | null> {
    const [row] = await this.dataSource.query<Array<{ latest: Date | null }>>(
      'SELECT max(published_at) AS latest FROM target_metrics',
    );
    return row?.latest ?? null;
  }

  /**
   * Gives these published targets their row (ignoring those that have one), due at `runStartedAt`
   * when published less than 30 days before it, never due otherwise.
   */
  async insertDiscovered(targets: PublishedTarget[], runStartedAt: Date): Promise<void> {
    if (targets.length === 0) return;
    await this.dataSource.query(
      `INSERT INTO target_metrics (target_id, post_id, channel_id, published_at, next_collect_at)
       SELECT u.target_id, u.post_id, u.channel_id, u.published_at,
              CASE WHEN u.published_at > $5::timestamptz - ($6 || ' milliseconds')::interval THEN $5::timestamptz END
         FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::timestamptz[])
           AS u(target_id, post_id, channel_id, published_at)
       ON CONFLICT (target_id) DO NOTHING`,
      [
        targets.map((t) => t.id),
        targets.map((t) => t.postId),
        targets.map((t) => t.channelId),
        targets.map((t) => t.publishedAt),
        runStartedAt,
        String(COLLECT_FOR_MS),
      ],
    );
  }

  /** Ids of posts with a target due by `dueBy` on one of `channelIds`, after `after`, in id order. */
  async duePostIds(dueBy: Date, channelIds: string[], after: string, limit: number): Promise<string[]> {
    const rows: Array<{ post_id: string }> = await this.dataSource.query(
      `SELECT post_id FROM target_metrics
        WHERE next_collect_at <= $1 AND post_id > $2 AND channel_id = ANY($3::uuid[])
        GROUP BY post_id ORDER BY post_id LIMIT $4`,
      [dueBy, after, channelIds, limit],
    );
    return rows.map((r) => r.post_id);
  }

  /** The targets of these posts on `channelIds`, only those due by `dueBy` unless it is null. */
  async targetsOf(postIds: string[], dueBy: Date | null, channelIds: string[]): Promise<MetricsTarget[]> {
    if (postIds.length === 0 || channelIds.length === 0) return [];
    const rows: Row[] = await this.dataSource.query(
      `SELECT ${METRICS_TARGET_COLUMNS} FROM target_metrics
        WHERE post_id = ANY($1::uuid[]) AND channel_id = ANY($3::uuid[])
          AND ($2::timestamptz IS NULL OR next_collect_at <= $2::timestamptz)`,
      [postIds, dueBy, channelIds],
    );
    return rows.map(toMetricsTarget);
  }

  /** The stored figures of these targets, locked (FOR UPDATE) in `em`'s transaction; deleted targets are absent. */
  async lockFigures(em: EntityManager, targetIds: string[]): Promise<StoredFigures[]> {
    if (targetIds.length === 0) return [];
    const rows: Row[] = await em.query(
      `SELECT ${STORED_FIGURES_COLUMNS} FROM target_metrics
        WHERE target_id = ANY($1::uuid[]) ORDER BY target_id FOR UPDATE`,
      [targetIds],
    );
    return rows.map(toStoredFigures);
  }

  /** The stored figures of these targets, read with `em` (null: on the pool); targets without a row are absent. */
  async figuresOf(em: EntityManager | null, targetIds: string[]): Promise<StoredFigures[]> {
    if (targetIds.length === 0) return [];
    const rows: Row[] = await (em ?? this.dataSource.manager).query(
      `SELECT ${STORED_FIGURES_COLUMNS} FROM target_metrics WHERE target_id = ANY($1::uuid[])`,
      [targetIds],
    );
    return rows.map(toStoredFigures);
  }

  /** A post's figures over time: every snapshot of its targets, oldest first (at most `limit`). */
  async snapshotsOfPost(postId: string, limit: number): Promise<Array<StoredFigures & { channelId: string }>> {
    const rows: Row[] = await this.dataSource.manager.query(
      `SELECT ${STORED_FIGURES_COLUMNS}, channel_id FROM analytics_snapshots WHERE post_id = $1
        ORDER BY collected_at, target_id LIMIT $2`,
      [postId, limit],
    );
    return rows.map((r) => ({ ...toStoredFigures(r), channelId: r.channel_id as string }));
  }

  /** One analytics_snapshots row per write. */
  async insertSnapshots(em: EntityManager, writes: FiguresWrite[]): Promise<void> {
    if (writes.length === 0) return;
    await em.query(
      `INSERT INTO analytics_snapshots (${SNAPSHOT_INSERT_COLUMNS})
       SELECT u.target_id, u.post_id, u.channel_id, u.collected_at, u.likes, u.reposts, u.replies, u.quotes,
              u.impressions, u.raw::jsonb
         FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::timestamptz[], $5::int[], $6::int[], $7::int[],
                     $8::int[], $9::int[], $10::text[])
           AS u(${SNAPSHOT_INSERT_COLUMNS})`,
      [
        writes.map((w) => w.target.targetId),
        writes.map((w) => w.target.postId),
        writes.map((w) => w.target.channelId),
        writes.map((w) => w.at.toISOString()),
        ...METRIC_KEYS.map((k) => writes.map((w) => w.figures[k])),
        writes.map((w) => JSON.stringify(w.raw)),
      ],
    );
  }

  /** Stores the latest figures, their read time and the next due time of each write. */
  async updateFigures(em: EntityManager, writes: FiguresWrite[]): Promise<void> {
    if (writes.length === 0) return;
    await em.query(
      `UPDATE target_metrics m
          SET likes = u.likes, reposts = u.reposts, replies = u.replies, quotes = u.quotes,
              impressions = u.impressions, raw = u.raw::jsonb, collected_at = u.collected_at,
              next_collect_at = u.next_collect_at
         FROM unnest($1::uuid[], $2::int[], $3::int[], $4::int[], $5::int[], $6::int[], $7::text[],
                     $8::timestamptz[], $9::timestamptz[])
           AS u(${FIGURES_UPDATE_COLUMNS})
        WHERE m.target_id = u.target_id`,
      [
        writes.map((w) => w.target.targetId),
        ...METRIC_KEYS.map((k) => writes.map((w) => w.figures[k])),
        writes.map((w) => JSON.stringify(w.raw)),
        writes.map((w) => w.at.toISOString()),
        writes.map((w) => w.next?.toISOString() ?? null),
      ],
    );
  }

  /** Moves targets to their next due time (null: collection has stopped) without new figures. */
  async reschedule(em: EntityManager, targets: Array<{ targetId: string; next: Date | null }>): Promise<void> {
    if (targets.length === 0) return;
    await em.query(
      `UPDATE target_metrics m SET next_collect_at = u.next_collect_at
         FROM unnest($1::uuid[], $2::timestamptz[]) AS u(target_id, next_collect_at)
        WHERE m.target_id = u.target_id`,
      [targets.map((t) => t.targetId), targets.map((t) => t.next?.toISOString() ?? null)],
    );
  }

  /**
   * Sums of the latest figures of the channel's targets by UTC publication day, for targets
   * published in [from, until). Days without a target are absent.
   */
  channelDays(channelId: string, from: Date, until: Date): Promise<DayRow[]> {
    return this.dataSource.query(
      `SELECT to_char(published_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, count(*)::int AS posts,
              sum(likes) AS likes, sum(reposts) AS reposts, sum(replies) AS replies,
              sum(quotes) AS quotes, sum(impressions) AS impressions
         FROM target_metrics
        WHERE channel_id = $1 AND published_at >= $2 AND published_at < $3
        GROUP BY 1`,
      [channelId, from, until],
    );
  }
}
