import { ApiProperty } from '@nestjs/swagger';
import { EVENT_TYPES, EventRecord, EventType } from '../event.entity';

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

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: 'The post, channel (plus `reason`) or analytics object as the API returns it',
  })
  data!: Record<string, unknown>;

  static from(e: EventRecord): EventDto {
    return { id: e.id, type: e.type, timestamp: e.createdAt.toISOString(), workspaceId: e.workspaceId, data: e.data };
  }
}
