import { Inject, Injectable, Logger } from '@nestjs/common';
import { ConfigType } from '@nestjs/config';
import { analyticsConfig } from '../config/analytics.config';
import { CredentialsRevokedError, ProviderError, TransientProviderError } from '../providers/provider.errors';
import { ProviderRegistry } from '../providers/provider.registry';
import { Figures, figuresOf } from './analytics-figures';
import { ChannelState, ChannelStates, CollectionChannels } from './collection-channels.service';
import { Limiter, createLimiter } from '../common/concurrency-limiter';
import type { MetricsTarget } from './target-metrics.store';

/** A target to read: its target_metrics row and the reference of the post on the network. */
export interface DueTarget extends MetricsTarget {
  platformPostId: string;
  url: string | null;
}

/** What happened to one target during a read. */
export type Outcome =
  | { kind: 'read'; figures: Figures; raw: Record<string, unknown>; at: Date }
  /** The network refuses this post for good (deleted, ...): keep the last figures, move to the next slot. */
  | { kind: 'gone' }
  /** The channel was disconnected meanwhile: nothing to read with; move to the next slot. */
  | { kind: 'skipped' }
  /** Transient failure (or revoked credentials): stays due, the next run tries again. */
  | { kind: 'retry' };

/**
 * Reading: asks the providers for the figures of a batch of targets, channel by channel in
 * parallel, under one process-wide concurrency limit (ANALYTICS_CONCURRENCY).
 */
@Injectable()
export class FiguresReader {
  private readonly logger = new Logger('AnalyticsCollector');
  private readonly limit: Limiter;

  constructor(
    private readonly providers: ProviderRegistry,
    private readonly channels: CollectionChannels,
    @Inject(analyticsConfig.KEY) cfg: ConfigType<typeof analyticsConfig>,
  ) {
    this.limit = createLimiter(cfg.concurrency);
  }

  /** Reads all targets; the outcome of each, by target id. */
  async readAll(targets: DueTarget[], states: ChannelStates): Promise<Map<string, Outcome>> {
    const byChannel = new Map<string, DueTarget[]>();
    for (const t of targets) {
      const list = byChannel.get(t.channelId);
      if (list) list.push(t);
      else byChannel.set(t.channelId, [t]);
    }
    await this.channels.load([...byChannel.keys()], states);
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
}
