import type { EventSchemas } from '../events/event-payloads';
import { ChannelDisconnectedDto } from './dto/channel.dto';

declare module '../events/event-payloads' {
  interface EventPayloads {
    /** The channel was disconnected, by a user or because the network refused its credentials. */
    'channel.disconnected': ChannelDisconnectedDto;
  }
}

/** The schemas of the events channels emits (the composition root hands them to EventsModule). */
export const CHANNEL_EVENT_SCHEMAS = {
  'channel.disconnected': ChannelDisconnectedDto,
} as const satisfies Partial<EventSchemas>;
