import { ApiProperty } from '@nestjs/swagger';
import { WebhookDeliveryAttempt } from '../webhook-delivery-attempt.entity';

/** One delivery attempt to the endpoint. */
export class WebhookDeliveryDto {
  @ApiProperty({ format: 'uuid' })
  id!: string;

  /** The delivery (this event to this endpoint) the attempt belongs to: redeliver it with `POST .../deliveries/{deliveryId}/redeliver`. */
  @ApiProperty({ format: 'uuid' })
  deliveryId!: string;

  /** The event delivered; also the `webhook-id` header, the same on every attempt. */
  @ApiProperty({ format: 'uuid' })
  eventId!: string;

  /** `post.published`, `post.failed`, `channel.disconnected`, `analytics.updated` or `webhook.test`. */
  @ApiProperty({ example: 'post.published' })
  eventType!: string;

  /** 1 for the first attempt of this event to this endpoint, 2 for the first retry, ... */
  attempt!: number;

  /** HTTP status the endpoint answered; null when no answer arrived (timeout, connection refused, blocked). */
  @ApiProperty({ nullable: true, type: Number })
  statusCode!: number | null;

  /** Time from sending the request to the end of the answer (or the failure), in ms. */
  durationMs!: number;

  /** Why the attempt failed (e.g. `HTTP 500`, `timeout after 15000 ms`); null on success. */
  @ApiProperty({ nullable: true, type: String })
  error!: string | null;

  /** True when the endpoint answered 2xx within 15 s. */
  succeeded!: boolean;

  @ApiProperty({ format: 'date-time' })
  createdAt!: string;

  static from(a: WebhookDeliveryAttempt): WebhookDeliveryDto {
    return {
      id: a.id,
      deliveryId: a.deliveryId,
      eventId: a.eventId,
      eventType: a.eventType,
      attempt: a.attempt,
      statusCode: a.statusCode,
      durationMs: a.durationMs,
      error: a.error,
      succeeded: a.succeeded,
      createdAt: a.createdAt.toISOString(),
    };
  }
}
