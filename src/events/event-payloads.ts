import { PostAnalyticsDto } from '../analytics/dto/post-analytics.dto';
import { ChannelDisconnectedDto } from '../channels/dto/channel.dto';
import { MediaDto } from '../media/dto/media.dto';
import { PostDto } from '../posts/dto/post.dto';
import type { EventType } from './event.entity';

/**
 * The one map from event type to the schema of its `data`. Emitters are type-checked against it
 * (EventsService.record), the OpenAPI document lists these schemas for EventDto.data, and the
 * webhook envelope (EventEnvelope) carries them. A new event type is one entry here plus its name
 * in EVENT_TYPES.
 */
export const EVENT_PAYLOADS = {
  'post.published': PostDto,
  'post.failed': PostDto,
  'channel.disconnected': ChannelDisconnectedDto,
  'analytics.updated': PostAnalyticsDto,
  'media.ready': MediaDto,
  'media.failed': MediaDto,
} as const satisfies Record<EventType, new () => object>;

/** The `data` of an event of type T. */
export type EventPayload<T extends EventType> = InstanceType<(typeof EVENT_PAYLOADS)[T]>;

/** An event to record: its type decides the shape of `data`. */
export type NewEvent<T extends EventType = EventType> = {
  [K in T]: { type: K; workspaceId: string; data: EventPayload<K> };
}[T];

/** The envelope listed by GET /events and POSTed to webhooks. */
export type EventEnvelope<T extends EventType = EventType> = {
  [K in T]: { id: string; type: K; timestamp: string; workspaceId: string; data: EventPayload<K> };
}[T];

/** Schemas of `data`, each once, in EVENT_TYPES order (for the OpenAPI `oneOf`). */
export const EVENT_PAYLOAD_SCHEMAS = [...new Set(Object.values(EVENT_PAYLOADS))];
