import { ApiProperty } from '@nestjs/swagger';
import { EVENT_TYPES, EventType } from '../../events/event-payloads';
import { WEBHOOK_DISABLED_REASONS, Webhook, WebhookDisabledReason } from '../webhook.entity';

/** A webhook subscription. Its secret is returned only by create and rotate-secret. */
export class WebhookDto {
  @ApiProperty({ format: 'uuid' })
  id!: string;

  @ApiProperty({ format: 'uri' })
  url!: string;

  /** The event types delivered to this endpoint (every type when it subscribed with none). */
  @ApiProperty({ enum: EVENT_TYPES, isArray: true })
  events!: EventType[];

  @ApiProperty({ nullable: true, type: String })
  description!: string | null;

  /** False when paused by the user or disabled by the service (see `disabledReason`). */
  enabled!: boolean;

  /**
   * Set when the service disabled the endpoint: `gone` (it answered 410) or `failing` (every
   * attempt failed for 5 days). Null otherwise. Re-enable with PUT `enabled: true`.
   */
  @ApiProperty({ enum: WEBHOOK_DISABLED_REASONS, nullable: true, type: String })
  disabledReason!: WebhookDisabledReason | null;

  /** Last secret rotation; for 24 h after it, deliveries carry signatures with the old and the new secret. */
  @ApiProperty({ format: 'date-time', nullable: true, type: String })
  secretRotatedAt!: string | null;

  @ApiProperty({ format: 'date-time' })
  createdAt!: string;

  @ApiProperty({ format: 'date-time' })
  updatedAt!: string;

  static from(w: Webhook): WebhookDto {
    return {
      id: w.id,
      url: w.url,
      events: w.events.length ? [...w.events] : [...EVENT_TYPES],
      description: w.description,
      enabled: w.enabled,
      disabledReason: w.disabledReason,
      secretRotatedAt: w.secretRotatedAt?.toISOString() ?? null,
      createdAt: w.createdAt.toISOString(),
      updatedAt: w.updatedAt.toISOString(),
    };
  }
}

/** A subscription with its signing secret: returned once, by create and by rotate-secret. */
export class WebhookWithSecretDto extends WebhookDto {
  /**
   * The signing secret (`whsec_` + base64 of 32 random bytes), for Standard Webhooks verification
   * (`standardwebhooks`, `svix`). Shown once: store it now.
   */
  @ApiProperty({ example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSwE2kq7gZcX1s=' })
  secret!: string;
}
