import { Inject, Injectable, Logger } from '@nestjs/common';
import { ConfigType } from '@nestjs/config';
import type { EntityManager } from 'typeorm';
import { ChannelsService } from '../channels/channels.service';
import { analyticsConfig } from '../config/analytics.config';
import { withDeadlockRetry } from '../database/deadlock-retry';
import { Transactions } from '../database/transactions';
import { PublishedTargetsStore } from '../posts/published-targets.store';
import { AnalyticsEvents } from './analytics-events.service';
import { planBatch, settledTargets } from './change-detection';
import { ChannelStates, CollectionChannels } from './collection-channels.service';
import { DueTarget, FiguresReader, Outcome } from './figures-reader.service';
import { TargetDiscovery } from './target-discovery.service';
import { TargetMetricsStore } from './target-metrics.store';

const NIL_UUID = '00000000-0000-0000-0000-000000000000';

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
 * schedule (target_metrics.next_collect_at); a run discovers new published targets
 * (TargetDiscovery), takes due posts in batches (all due targets of a post in the same batch, so a
 * post gets at most one `analytics.updated` per run), reads them with bounded concurrency
 * (FiguresReader), and writes each batch in one transaction: the latest figures, a snapshot per
 * changed target (planBatch), one event per changed post (AnalyticsEvents), refreshed credentials
 * and revoked channels (CollectionChannels). Change detection happens under row locks against the
 * stored figures, so a refresh running at the same time as a scheduled run cannot record a change twice.
 */
@Injectable()
export class AnalyticsCollector {
  private readonly logger = new Logger('AnalyticsCollector');

  constructor(
    private readonly transactions: Transactions,
    private readonly discovery: TargetDiscovery,
    private readonly reader: FiguresReader,
    private readonly collectionChannels: CollectionChannels,
    private readonly analyticsEvents: AnalyticsEvents,
    private readonly metrics: TargetMetricsStore,
    private readonly published: PublishedTargetsStore,
    private readonly channels: ChannelsService,
    @Inject(analyticsConfig.KEY) private readonly cfg: ConfigType<typeof analyticsConfig>,
  ) {}

  /** One scheduled run over every due target. `shouldStop` is checked between batches (shutdown). */
  async collectDue(shouldStop: () => boolean = () => false): Promise<CollectionStats> {
    const runStartedAt = new Date();
    const stats = this.newStats(runStartedAt);
    await this.discovery.discover(runStartedAt);
    const channelStates: ChannelStates = new Map();
    let writing: Promise<void> = Promise.resolve();
    let after = NIL_UUID;
    while (!shouldStop()) {
      // Targets of a disconnected channel are left as they are: due, they are read as soon as the
      // channel is connected again. Active channels are read again each batch (one may be disconnected meanwhile).
      const active = await this.channels.activeIds();
      const postIds = await this.metrics.duePostIds(runStartedAt, active, after, this.cfg.batchSize);
      if (postIds.length === 0) break;
      after = postIds[postIds.length - 1]!;
      const targets = await this.loadTargets(postIds, runStartedAt, active);
      const outcomes = await this.reader.readAll(targets, channelStates);
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
    await this.discovery.discover(runStartedAt, postId);
    const targets = await this.loadTargets([postId], null, await this.channels.activeIds());
    const channelStates: ChannelStates = new Map();
    const outcomes = await this.reader.readAll(targets, channelStates);
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

  /** The targets of these posts on active channels (only those due by `dueBy` unless null), with their network references. */
  private async loadTargets(postIds: string[], dueBy: Date | null, activeChannelIds: string[]): Promise<DueTarget[]> {
    const rows = await this.metrics.targetsOf(postIds, dueBy, activeChannelIds);
    const refs = await this.published.refsOf(rows.map((r) => r.targetId));
    const targets: DueTarget[] = [];
    for (const row of rows) {
      const ref = refs.get(row.targetId);
      if (ref) targets.push({ ...row, platformPostId: ref.platformPostId, url: ref.url });
    }
    return targets;
  }

  /** Writes one batch; a failed write is logged and its targets stay due for the next run. */
  private async write(batch: PendingWrite, states: ChannelStates, stats: CollectionStats): Promise<void> {
    try {
      const counts = await withDeadlockRetry(() =>
        this.transactions.run((em) => this.writeInTransaction(em, batch, states)),
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
    states: ChannelStates,
  ): Promise<{ snapshots: number; events: number; disconnected: number }> {
    // Stored figures of the settled targets, locked for this transaction.
    const stored = await this.metrics.lockFigures(
      em,
      settledTargets(targets, outcomes).map((t) => t.targetId),
    );
    const plan = planBatch(targets, outcomes, stored, runStartedAt, this.cfg.intervalMs);
    await this.metrics.insertSnapshots(em, plan.snapshots);
    await this.metrics.updateFigures(em, plan.updates);
    await this.metrics.reschedule(em, plan.reschedules);
    const disconnected = await this.collectionChannels.persist(
      em,
      targets.map((t) => t.channelId),
      states,
    );
    const events = await this.analyticsEvents.record(em, plan.changedPosts);
    return { snapshots: plan.snapshots.length, events, disconnected };
  }
}
