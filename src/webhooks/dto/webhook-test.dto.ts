import { ApiProperty } from '@nestjs/swagger';

/** The `webhook.test` event queued for this endpoint only, exactly as it will be POSTed. */
export class WebhookTestEventDto {
  /** Event id: the `webhook-id` header of the delivery and `eventId` in `GET /webhooks/:id/deliveries`. */
  @ApiProperty({ format: 'uuid' })
  id!: string;

  @ApiProperty({ enum: ['webhook.test'] })
  type!: 'webhook.test';

  @ApiProperty({ format: 'date-time' })
  timestamp!: string;

  @ApiProperty({ format: 'uuid' })
  workspaceId!: string;

  /** `{webhookId, url, message}`. */
  @ApiProperty({ type: 'object', additionalProperties: true })
  data!: Record<string, unknown>;
}
