import { Inject, Injectable, Logger } from '@nestjs/common';
import { ConfigType } from '@nestjs/config';
import { DataSource, EntityManager, In } from 'typeorm';
import { Channel } from '../channels/channel.entity';
import { ChannelsService } from '../channels/channels.service';
import { analyticsConfig } from '../config/analytics.config';
import { EventsService } from '../events/events.service';
import { ChannelCredentialsService } from '../oauth/channel-credentials.service';
import { CredentialsRevokedError, ProviderError, TransientProviderError } from '../providers/provider.errors';
import { ProviderRegistry } from '../providers/provider.registry';
import { withDeadlockRetry } from '../database/deadlock-retry';
import { Figures, METRIC_KEYS, figuresChanged, figuresOf } from './analytics-figures';
import { AnalyticsService } from './analytics.service';
import { COLLECT_FOR_MS, nextCollectAt } from './collection-cadence';
import { Limiter, createLimiter } from './concurrency-limiter';

const NIL_UUID = '00000000-0000-0000-0000-000000000000';

/** A target to read: its row in target_metrics joined with the reference on the network. */
interface DueTarget {
  targetId: string;
  postId: string;
  channelId: string;
  publishedAt: Date;
  platformPostId: string;
  url: string | null;
}

/** What happened to one target during a read. */
type Outcome =
  | { kind: 'read'; figures: Figures; raw: Record<string, unknown>; at: Date }
  /** The network refuses this post for good (deleted, ...): keep the last figures, move to the next slot. */
  | { kind: 'gone' }
  /** The channel was disconnected meanwhile: nothing to read with; move to the next slot. */
  | { kind: 'skipped' }
  /** Transient failure (or revoked credentials): stays due, the next run tries again. */
  | { kind: 'retry' };

/** A channel as seen by one run: its credentials may be refreshed by an adapter, or found revoked. */
interface ChannelState {
  channel: Channel;
  credentials: Record<string, unknown> | null;
  refreshed: boolean;
  revoked: boolean;
  revokedMessage?: string;
}

/** Counters of one collection (a scheduled run or one post's refresh). */
export interface CollectionStats {
  startedAt: string;
  durationMs: number;
  /** Targets considered (due, or every published target of a refreshed post). */
  targets: number;
  /** Targets whose figures were read successfully. */
  read: number;
  /** Targets left due after a transient failure or revoked credentials. */
  retry: number;
  /** Targets skipped (channel disconnected) or refused for good by the network. */
  skipped: number;
  snapshots: number;
  events: number;
  /** Channels disconnected because the provider said their credentials are revoked. */
  disconnected: number;
}

type PendingWrite = { targets: DueTarget[]; outcomes: Map<string, Outcome>; runStartedAt: Date };

/**
 * Reads the figures of published targets from the providers and stores them. Postgres holds the
 * schedule (target_metrics.next_collect_at); a run takes due posts in batches (all due targets of a
 * post in the same batch, so a post gets at most one `analytics.updated` per run), reads them with
 * bounded concurrency, and writes each batch in one transaction: the latest figures, a snapshot per
 * changed target, one event per changed post, refreshed credentials and revoked channels.
 * Change detection happens under row locks against the stored figures, so a refresh running at the
 * same time as a scheduled run cannot record a change twice.
 */
@Injectable()
export class AnalyticsCollector {
  private readonly logger = new Logger('AnalyticsCollector');
  private readonly limit: Limiter;

  constructor(
    private readonly dataSource: DataSource,
    private readonly channels: ChannelsService,
    private readonly channelCredentials: ChannelCredentialsService,
    private readonly providers: ProviderRegistry,
    private readonly events: EventsService,
    private readonly analytics: AnalyticsService,
    @Inject(analyticsConfig.KEY) private readonly cfg: ConfigType<typeof analyticsConfig>,
  ) {
    this.limit = createLimiter(cfg.concurrency);
  }

  /** One scheduled run over every due target. `shouldStop` is checked between batches (shutdown). */
  async collectDue(shouldStop: () => boolean = () => false): Promise<CollectionStats> {
    const runStartedAt = new Date();
    const stats = this.newStats(runStartedAt);
    await this.discover(runStartedAt);
    const channelStates = new Map<string, ChannelState>();
    let writing: Promise<void> = Promise.resolve();
    let after = NIL_UUID;
    while (!shouldStop()) {
      const postIds = (
        await this.dataSource.query<Array<{ post_id: string }>>(
          `SELECT m.post_id FROM target_metrics m JOIN channels c ON c.id = m.channel_id AND c.status = 'active'
            WHERE m.next_collect_at <= $1 AND m.post_id > $2
            GROUP BY m.post_id ORDER BY m.post_id LIMIT $3`,
          [runStartedAt, after, this.cfg.batchSize],
        )
      ).map((r) => r.post_id);
      if (postIds.length === 0) break;
      after = postIds[postIds.length - 1]!;
      const targets = await this.loadTargets(postIds, runStartedAt);
      const outcomes = await this.readAll(targets, channelStates);
      // Reading batch n+1 overlaps writing batch n; writes stay one at a time, in order.
      await writing;
      writing = this.write({ targets, outcomes, runStartedAt }, channelStates, stats);
      if (postIds.length < this.cfg.batchSize) break;
    }
    await writing;
    stats.durationMs = Date.now() - runStartedAt.getTime();
    return stats;
  }

  /** Reads every published target of one post now (POST /analytics/posts/:postId/refresh). */
  async collectPost(postId: string): Promise<CollectionStats> {
    const runStartedAt = new Date();
    const stats = this.newStats(runStartedAt);
    await this.discover(runStartedAt, postId);
    const targets = await this.loadTargets([postId], null);
    const channelStates = new Map<string, ChannelState>();
    const outcomes = await this.readAll(targets, channelStates);
    await this.write({ targets, outcomes, runStartedAt }, channelStates, stats);
    stats.durationMs = Date.now() - runStartedAt.getTime();
    return stats;
  }

  private newStats(startedAt: Date): CollectionStats {
    return {
      startedAt: startedAt.toISOString(),
      durationMs: 0,
      targets: 0,
      read: 0,
      retry: 0,
      skipped: 0,
      snapshots: 0,
      events: 0,
      disconnected: 0,
    };
  }

  /**
   * Gives every published target its target_metrics row, due at once when published less than 30
   * days ago. Published targets never go back to another state, so this only ever adds rows.
   */
  private async discover(runStartedAt: Date, postId?: string): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO target_metrics (target_id, post_id, channel_id, published_at, next_collect_at)
       SELECT t.id, t.post_id, t.channel_id, t.published_at,
              CASE WHEN t.published_at > $1::timestamptz - ($2 || ' milliseconds')::interval THEN $1::timestamptz END
         FROM post_targets t
        WHERE t.status = 'published' AND t.published_at IS NOT NULL AND t.platform_post_id IS NOT NULL
          AND ($3::uuid IS NULL OR t.post_id = $3::uuid)
          AND NOT EXISTS (SELECT 1 FROM target_metrics m WHERE m.target_id = t.id)
       ON CONFLICT (target_id) DO NOTHING`,
      [runStartedAt, String(COLLECT_FOR_MS), postId ?? null],
    );
  }

  /**
   * The targets of these posts on active channels, only those due by `dueBy` unless it is null. Targets of
   * a disconnected channel are left as they are: due, they are read as soon as the channel is connected again.
   */
  private async loadTargets(postIds: string[], dueBy: Date | null): Promise<DueTarget[]> {
    const rows: Array<{
      target_id: string;
      post_id: string;
      channel_id: string;
      published_at: Date;
      platform_post_id: string;
      url: string | null;
    }> = await this.dataSource.query(
      `SELECT m.target_id, m.post_id, m.channel_id, m.published_at, t.platform_post_id, t.url
         FROM target_metrics m JOIN post_targets t ON t.id = m.target_id
         JOIN channels c ON c.id = m.channel_id AND c.status = 'active'
        WHERE m.post_id = ANY($1::uuid[]) AND ($2::timestamptz IS NULL OR m.next_collect_at <= $2::timestamptz)`,
      [postIds, dueBy],
    );
    return rows.map((r) => ({
      targetId: r.target_id,
      postId: r.post_id,
      channelId: r.channel_id,
      publishedAt: r.published_at,
      platformPostId: r.platform_post_id,
      url: r.url,
    }));
  }

  /** Reads all targets, channel by channel in parallel, sharing the process-wide concurrency limit. */
  private async readAll(targets: DueTarget[], states: Map<string, ChannelState>): Promise<Map<string, Outcome>> {
    const byChannel = new Map<string, DueTarget[]>();
    for (const t of targets) {
      const list = byChannel.get(t.channelId);
      if (list) list.push(t);
      else byChannel.set(t.channelId, [t]);
    }
    await this.loadChannels([...byChannel.keys()], states);
    const outcomes = new Map<string, Outcome>();
    await Promise.all(
      [...byChannel].map(async ([channelId, list]) => {
        const state = states.get(channelId);
        if (!state || state.channel.status !== 'active' || !state.credentials) {
          for (const t of list) outcomes.set(t.targetId, { kind: state?.revoked ? 'retry' : 'skipped' });
          return;
        }
        // The first read goes alone: if it renews a session (Bluesky), the others reuse the new tokens.
        const [first, ...rest] = list;
        outcomes.set(first.targetId, await this.limit(() => this.readOne(state, first)));
        await Promise.all(
          rest.map(async (t) => outcomes.set(t.targetId, await this.limit(() => this.readOne(state, t)))),
        );
      }),
    );
    return outcomes;
  }

  /**
   * Loads the channels (again each batch: a user may disconnect one during a run). Credentials an
   * adapter refreshed earlier in this run are kept, since their write may not be committed yet.
   */
  private async loadChannels(ids: string[], states: Map<string, ChannelState>): Promise<void> {
    if (ids.length === 0) return;
    const channels = await this.dataSource.getRepository(Channel).findBy({ id: In(ids) });
    for (const channel of channels) {
      const previous = states.get(channel.id);
      if (previous?.revoked) {
        previous.channel = channel;
        continue;
      }
      let credentials: Record<string, unknown> | null = null;
      let revoked = false;
      if (channel.status === 'active') {
        try {
          // OAuth networks: an expiring access token is refreshed first (once per channel, under its lock).
          credentials = previous?.refreshed ? previous.credentials : await this.channelCredentials.open(channel);
        } catch (err) {
          if (err instanceof CredentialsRevokedError) {
            revoked = true; // the refresh was refused and the channel is disconnected already
          } else if (!(err instanceof TransientProviderError)) {
            this.logger.error({
              msg: 'Cannot open channel credentials',
              channelId: channel.id,
              err: (err as Error).message,
            });
          }
        }
      }
      states.set(channel.id, {
        channel,
        credentials,
        refreshed: previous?.refreshed ?? false,
        revoked,
      });
    }
  }

  private async readOne(state: ChannelState, target: DueTarget): Promise<Outcome> {
    if (state.revoked || !state.credentials) return { kind: 'retry' };
    try {
      const result = await this.providers
        .get(state.channel.provider)
        .fetchMetrics(state.credentials, { platformPostId: target.platformPostId, url: target.url ?? '' });
      if (result.credentials) {
        state.credentials = result.credentials;
        state.refreshed = true;
      }
      const { raw, ...figures } = result.metrics;
      return { kind: 'read', figures: figuresOf(figures), raw, at: new Date() };
    } catch (err) {
      if (err instanceof CredentialsRevokedError) {
        state.revoked = true;
        state.revokedMessage = err.message;
        return { kind: 'retry' };
      }
      if (err instanceof TransientProviderError) return { kind: 'retry' };
      if (err instanceof ProviderError) {
        this.logger.warn({ msg: 'Metrics refused by the provider', targetId: target.targetId, err: err.message });
        return { kind: 'gone' };
      }
      this.logger.error({ msg: 'Unexpected metrics failure', targetId: target.targetId, err: (err as Error)?.message });
      return { kind: 'retry' };
    }
  }

  /** Writes one batch; a failed write is logged and its targets stay due for the next run. */
  private async write(batch: PendingWrite, states: Map<string, ChannelState>, stats: CollectionStats): Promise<void> {
    try {
      const counts = await withDeadlockRetry(() =>
        this.dataSource.transaction((em) => this.writeInTransaction(em, batch, states)),
      );
      stats.targets += batch.targets.length;
      for (const o of batch.outcomes.values()) {
        if (o.kind === 'read') stats.read += 1;
        else if (o.kind === 'retry') stats.retry += 1;
        else stats.skipped += 1;
      }
      stats.snapshots += counts.snapshots;
      stats.events += counts.events;
      stats.disconnected += counts.disconnected;
    } catch (err) {
      stats.targets += batch.targets.length;
      stats.retry += batch.targets.length;
      this.logger.error({ msg: 'Could not store collected metrics', err: (err as Error).message });
    }
  }

  private async writeInTransaction(
    em: EntityManager,
    { targets, outcomes, runStartedAt }: PendingWrite,
    states: Map<string, ChannelState>,
  ): Promise<{ snapshots: number; events: number; disconnected: number }> {
    const settled = targets.filter((t) => outcomes.get(t.targetId)?.kind !== 'retry');
    // Stored figures (null before the first read) and read time of each target, locked for this transaction.
    const locked = new Map<string, { figures: Figures | null; at: Date | null }>();
    if (settled.length > 0) {
      const rows: Array<Figures & { target_id: string; collected_at: Date | null }> = await em.query(
        `SELECT target_id, likes, reposts, replies, quotes, impressions, collected_at FROM target_metrics
          WHERE target_id = ANY($1::uuid[]) ORDER BY target_id FOR UPDATE`,
        [settled.map((t) => t.targetId)],
      );
      for (const r of rows)
        locked.set(r.target_id, { figures: r.collected_at ? figuresOf(r) : null, at: r.collected_at });
    }

    const updates: Array<{
      t: DueTarget;
      figures: Figures;
      raw: Record<string, unknown>;
      at: Date;
      next: Date | null;
    }> = [];
    const snapshots: typeof updates = [];
    const reschedules: Array<{ t: DueTarget; next: Date | null }> = [];
    const changedPosts = new Set<string>();
    for (const t of settled) {
      const stored = locked.get(t.targetId);
      if (!stored) continue; // the post was deleted meanwhile
      const outcome = outcomes.get(t.targetId)!;
      const next = nextCollectAt(t.publishedAt, runStartedAt, this.cfg.intervalMs);
      if (outcome.kind !== 'read') {
        reschedules.push({ t, next });
        continue;
      }
      if (stored.at && stored.at >= outcome.at) continue; // a newer read (a concurrent refresh) is stored already
      const row = { t, figures: outcome.figures, raw: outcome.raw, at: outcome.at, next };
      updates.push(row);
      if (figuresChanged(stored.figures, outcome.figures)) {
        snapshots.push(row);
        changedPosts.add(t.postId);
      }
    }

    if (snapshots.length > 0) {
      await em.query(
        `INSERT INTO analytics_snapshots
                (target_id, post_id, channel_id, collected_at, likes, reposts, replies, quotes, impressions, raw)
         SELECT u.target_id, u.post_id, u.channel_id, u.collected_at, u.likes, u.reposts, u.replies, u.quotes,
                u.impressions, u.raw::jsonb
           FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::timestamptz[], $5::int[], $6::int[], $7::int[],
                       $8::int[], $9::int[], $10::text[])
             AS u(target_id, post_id, channel_id, collected_at, likes, reposts, replies, quotes, impressions, raw)`,
        [
          snapshots.map((s) => s.t.targetId),
          snapshots.map((s) => s.t.postId),
          snapshots.map((s) => s.t.channelId),
          snapshots.map((s) => s.at.toISOString()),
          ...METRIC_KEYS.map((k) => snapshots.map((s) => s.figures[k])),
          snapshots.map((s) => JSON.stringify(s.raw)),
        ],
      );
    }
    if (updates.length > 0) {
      await em.query(
        `UPDATE target_metrics m
            SET likes = u.likes, reposts = u.reposts, replies = u.replies, quotes = u.quotes,
                impressions = u.impressions, raw = u.raw::jsonb, collected_at = u.collected_at,
                next_collect_at = u.next_collect_at
           FROM unnest($1::uuid[], $2::int[], $3::int[], $4::int[], $5::int[], $6::int[], $7::text[],
                       $8::timestamptz[], $9::timestamptz[])
             AS u(target_id, likes, reposts, replies, quotes, impressions, raw, collected_at, next_collect_at)
          WHERE m.target_id = u.target_id`,
        [
          updates.map((u) => u.t.targetId),
          ...METRIC_KEYS.map((k) => updates.map((u) => u.figures[k])),
          updates.map((u) => JSON.stringify(u.raw)),
          updates.map((u) => u.at.toISOString()),
          updates.map((u) => u.next?.toISOString() ?? null),
        ],
      );
    }
    if (reschedules.length > 0) {
      await em.query(
        `UPDATE target_metrics m SET next_collect_at = u.next_collect_at
           FROM unnest($1::uuid[], $2::timestamptz[]) AS u(target_id, next_collect_at)
          WHERE m.target_id = u.target_id`,
        [reschedules.map((r) => r.t.targetId), reschedules.map((r) => r.next?.toISOString() ?? null)],
      );
    }

    let disconnected = 0;
    const channelIds = [...new Set(targets.map((t) => t.channelId))].sort();
    for (const id of channelIds) {
      const state = states.get(id);
      if (!state) continue;
      if (state.revoked) {
        if (await this.channels.disconnectInTransaction(em, id, 'credentials_revoked')) {
          disconnected += 1;
          this.logger.warn({
            msg: 'Channel disconnected: credentials revoked',
            channelId: id,
            err: state.revokedMessage,
          });
        }
      } else if (state.refreshed && state.credentials) {
        await this.channels.updateCredentials(state.channel, state.credentials, em);
      }
    }

    const events = await this.recordEvents(em, [...changedPosts]);
    return { snapshots: snapshots.length, events, disconnected };
  }

  /** One `analytics.updated` per changed post, carrying the post's analytics object as GET returns it. */
  private async recordEvents(em: EntityManager, postIds: string[]): Promise<number> {
    if (postIds.length === 0) return 0;
    const owners: Array<{ id: string; workspace_id: string }> = await em.query(
      'SELECT id, workspace_id FROM posts WHERE id = ANY($1::uuid[])',
      [postIds],
    );
    const analytics = await this.analytics.postAnalytics(em, postIds);
    for (const { id, workspace_id } of owners) {
      await this.events.record(em, {
        type: 'analytics.updated',
        workspaceId: workspace_id,
        data: analytics.get(id)!,
      });
    }
    return owners.length;
  }
}
