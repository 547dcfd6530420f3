import { ApiProperty } from '@nestjs/swagger';
import { WebhookDeliveryAttempt } from '../webhook-delivery-attempt.entity';

/**
 * One HTTP attempt to deliver an event to the endpoint. `attemptId` names this attempt; `deliveryId` names
 * the delivery (this event to this endpoint) it belongs to, which has one attempt or more and is what
 * `POST .../deliveries/{deliveryId}/redeliver` takes.
 */
export class WebhookDeliveryDto {
  /** This attempt (one HTTP request). Not the id redeliver takes: that is `deliveryId`. */
  @ApiProperty({ format: 'uuid' })
  attemptId!: string;

  /** The delivery (this event to this endpoint) the attempt belongs to: redeliver it with `POST .../deliveries/{deliveryId}/redeliver`. */
  @ApiProperty({ format: 'uuid' })
  deliveryId!: string;

  /** Deprecated: the same as `attemptId`, kept for existing clients. Use `attemptId`, or `deliveryId` to redeliver. */
  @ApiProperty({ format: 'uuid', deprecated: true })
  id!: string;

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
      attemptId: a.id,
      deliveryId: a.deliveryId,
      id: a.id,
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
