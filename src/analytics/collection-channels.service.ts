import { Injectable, Logger } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { Channel } from '../channels/channel.entity';
import { ChannelsService } from '../channels/channels.service';
import { ChannelCredentialsService } from '../oauth/channel-credentials.service';
import { CredentialsRevokedError, TransientProviderError } from '../providers/provider.errors';

/** A channel as seen by one run: its credentials may be refreshed by an adapter, or found revoked. */
export interface ChannelState {
  channel: Channel;
  credentials: Record<string, unknown> | null;
  refreshed: boolean;
  revoked: boolean;
  revokedMessage?: string;
}

/** The channels of one collection run (a scheduled run or a refresh), by id. */
export type ChannelStates = Map<string, ChannelState>;

/**
 * Credentials during a collection: opens each channel's credentials (refreshing an expiring OAuth
 * token first), keeps what adapters refresh or find revoked for the rest of the run, and stores it
 * with each batch's write.
 */
@Injectable()
export class CollectionChannels {
  private readonly logger = new Logger('AnalyticsCollector');

  constructor(
    private readonly channels: ChannelsService,
    private readonly channelCredentials: ChannelCredentialsService,
  ) {}

  /**
   * Loads the channels (again each batch: a user may disconnect one during a run). Credentials an
   * adapter refreshed earlier in this run are kept, since their write may not be committed yet.
   */
  async load(ids: string[], states: ChannelStates): Promise<void> {
    if (ids.length === 0) return;
    const channels = await this.channels.findByIds(ids);
    for (const channel of channels.values()) {
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

  /**
   * In the batch's transaction: disconnects the channels whose credentials a provider said are
   * revoked, and stores credentials adapters refreshed. Returns how many channels this disconnected.
   */
  async persist(em: EntityManager, channelIds: string[], states: ChannelStates): Promise<number> {
    let disconnected = 0;
    for (const id of [...new Set(channelIds)].sort()) {
      const state = states.get(id);
      if (!state) continue;
      if (state.revoked) {
        if (await this.channels.disconnectInTransaction(em, id, 'credentials_revoked')) {
          disconnected += 1;
          this.channels.logDisconnectedByNetwork(state.channel, 'analytics', state.revokedMessage);
        }
      } else if (state.refreshed && state.credentials) {
        await this.channels.updateCredentials(state.channel, state.credentials, em);
      }
    }
    return disconnected;
  }
}
