import type { EventType, NewEvent } from '../../src/events/event-payloads';

/**
 * An event with a small stand-in payload, for specs about transport (relay, signing, retries) rather
 * than payload shape. Real emitters are type-checked against EventPayloads.
 */
export function syntheticEvent(type: EventType, workspaceId: string, data: Record<string, unknown>): NewEvent {
  return { type, workspaceId, data } as unknown as NewEvent;
}
