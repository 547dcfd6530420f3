import type { EventSchemas } from '../events/event-payloads';
import { ChannelConnectedDto, ChannelDisconnectedDto } from './dto/channel.dto';

declare module '../events/event-payloads' {
  interface EventPayloads {
    /** A channel was connected: a new one, or one reconnected (any way in: API, OAuth, console, connect link). */
    'channel.connected': ChannelConnectedDto;
    /** The channel was disconnected, by a user or because the network refused its credentials. */
    'channel.disconnected': ChannelDisconnectedDto;
  }
}

/** The schemas of the events channels emits (the composition root hands them to EventsModule). */
export const CHANNEL_EVENT_SCHEMAS = {
  'channel.connected': ChannelConnectedDto,
  'channel.disconnected': ChannelDisconnectedDto,
} as const satisfies Partial<EventSchemas>;
