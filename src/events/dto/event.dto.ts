import { ApiExtraModels, ApiProperty, getSchemaPath } from '@nestjs/swagger';
import { EVENT_PAYLOADS, EVENT_PAYLOAD_SCHEMAS, EventPayload } from '../event-payloads';
import { EVENT_TYPES, EventRecord, EventType } from '../event.entity';

/** The event envelope, as listed and as delivered to webhooks. */
@ApiExtraModels(...EVENT_PAYLOAD_SCHEMAS)
export class EventDto {
  @ApiProperty({ format: 'uuid', description: 'Event id; also the `webhook-id` of its deliveries' })
  id!: string;

  @ApiProperty({ enum: EVENT_TYPES })
  type!: EventType;

  @ApiProperty({ format: 'date-time' })
  timestamp!: string;

  @ApiProperty({ format: 'uuid' })
  workspaceId!: string;

  @ApiProperty({
    oneOf: EVENT_PAYLOAD_SCHEMAS.map((schema) => ({ $ref: getSchemaPath(schema) })),
    description:
      'The post, channel (plus `reason`) or analytics object as the API returns it, by type: ' +
      Object.entries(EVENT_PAYLOADS)
        .map(([type, schema]) => `\`${type}\`: ${schema.name}`)
        .join('; '),
  })
  data!: EventPayload<EventType>;

  static from(e: EventRecord): EventDto {
    return {
      id: e.id,
      type: e.type,
      timestamp: e.createdAt.toISOString(),
      workspaceId: e.workspaceId,
      // Stored by EventsService.record from a typed NewEvent; read back as JSON.
      data: e.data as unknown as EventPayload<EventType>,
    };
  }
}
