import { ApiExtraModels, ApiProperty, getSchemaPath } from '@nestjs/swagger';
import { EVENT_TYPES, EventPayload, EventSchemas, EventType } from '../event-payloads';
import { EventRecord } from '../event.entity';

/** The event envelope, as listed and as delivered to webhooks. */
export class EventDto {
  @ApiProperty({ format: 'uuid', description: 'Event id; also the `webhook-id` of its deliveries' })
  id!: string;

  @ApiProperty({ enum: EVENT_TYPES })
  type!: EventType;

  @ApiProperty({ format: 'date-time' })
  timestamp!: string;

  @ApiProperty({ format: 'uuid' })
  workspaceId!: string;

  // Its schema (oneOf the classes the features declare for their events) is set by describeEventPayloads.
  data!: EventPayload<EventType>;

  static from(e: EventRecord): EventDto {
    return { id: e.id, type: e.type, timestamp: e.createdAt.toISOString(), workspaceId: e.workspaceId, data: e.data };
  }
}

let described: EventSchemas | undefined;

/**
 * Gives EventDto.data its OpenAPI schema: `anyOf` the classes the features declare for their events
 * (each once, in EVENT_TYPES order), named by type in the description. Called once with the
 * composition root's schemas (EventsModule.forRoot); calling it again with the same ones does nothing.
 */
export function describeEventPayloads(schemas: EventSchemas): void {
  if (described === schemas) return;
  if (described) throw new Error('Event payload schemas are already described with other classes');
  described = schemas;
  const unique = [...new Set(EVENT_TYPES.map((type) => schemas[type]))];
  ApiExtraModels(...unique)(EventDto);
  ApiProperty({
    // What the compiler's design:type said of the union when this was a class decorator (absent here).
    type: Object,
    // anyOf, not oneOf: the event's `type` says which payload it carries, and payloads may overlap
    // (workspace.deleted's {workspaceId} is a part of channel.connected's), so "exactly one" would be false.
    anyOf: unique.map((schema) => ({ $ref: getSchemaPath(schema) })),
    description:
      'The post, channel (plus `reason`) or analytics object as the API returns it, by type: ' +
      EVENT_TYPES.map((type) => `\`${type}\`: ${schemas[type].name}`).join('; '),
  })(EventDto.prototype, 'data');
}
