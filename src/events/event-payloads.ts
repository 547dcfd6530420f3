import type { Type } from '@nestjs/common';

/**
 * The names of the events, as webhooks subscribe to them: the published vocabulary. The payload of
 * each is declared by the feature that emits it (EventPayloads, below).
 */
export const EVENT_TYPES = [
  'post.published',
  'post.failed',
  'post.approval_requested',
  'post.approved',
  'post.rejected',
  'post.first_comment_failed',
  'channel.connected',
  'channel.disconnected',
  'analytics.updated',
  'media.ready',
  'media.failed',
  'workspace.deleted',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/**
 * The type of each event's `data`, by event type. events/ declares the interface empty and imports no
 * feature: the feature that emits an event declares its payload by declaration merging, in its
 * `<feature>.events.ts` (next to the schema the OpenAPI document shows for it):
 *
 * ```ts
 * declare module '../events/event-payloads' {
 *   interface EventPayloads { 'post.published': PostDto; 'post.failed': PostDto }
 * }
 * ```
 *
 * Emitters are type-checked against it (EventsService.record), GET /events and webhook envelopes carry
 * it. A new event type is its name in EVENT_TYPES (the published vocabulary, above) plus its
 * payload and schema in the emitting feature; the build fails until both exist.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by declaration merging
export interface EventPayloads {}

/** The `data` of an event of type T. */
export type EventPayload<T extends EventType> = T extends keyof EventPayloads ? EventPayloads[T] : never;

type Missing = Exclude<EventType, keyof EventPayloads>;
type Unlisted = Exclude<keyof EventPayloads, EventType>;
/**
 * Compiles only when every name in EVENT_TYPES has a declared payload and every declared payload is
 * named in EVENT_TYPES (the error names the offending types).
 */
export const EVERY_EVENT_TYPE_HAS_A_PAYLOAD: [Missing, Unlisted] extends [never, never]
  ? true
  : { missing: Missing; unlisted: Unlisted } = true;

/** An event to record: its type decides the shape of `data`. */
export type NewEvent<T extends EventType = EventType> = {
  [K in T]: { type: K; workspaceId: string; data: EventPayload<K> };
}[T];

/** The envelope listed by GET /events and POSTed to webhooks: the event with its id and time. */
export type EventEnvelope<T extends EventType = EventType> = NewEvent<T> & { id: string; timestamp: string };

/**
 * The class describing each event's `data` in the OpenAPI document, by type: each feature exports the
 * schemas of its events, and the composition root hands all of them to EventsModule.forRoot (the
 * compiler checks that each class describes the declared payload).
 */
export type EventSchemas = { readonly [T in EventType]: Type<EventPayload<T>> };
