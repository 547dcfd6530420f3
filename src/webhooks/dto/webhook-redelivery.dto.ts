import { ApiProperty } from '@nestjs/swagger';
import { IsUUID } from 'class-validator';
import { IsRfc3339 } from '../../common/validators';

/** Path of POST /webhooks/{id}/deliveries/{deliveryId}/redeliver. */
export class DeliveryParamDto {
  /** Webhook id (UUID). */
  @IsUUID('all', { message: 'must be a UUID' })
  id!: string;

  /** Delivery id (UUID), as `deliveryId` in the delivery log. */
  @IsUUID('all', { message: 'must be a UUID' })
  deliveryId!: string;
}

/** A delivery put back in the queue for one more attempt. */
export class RedeliveryDto {
  @ApiProperty({ format: 'uuid' })
  deliveryId!: string;

  /** The event; also the `webhook-id` header, unchanged, so receivers can deduplicate. */
  @ApiProperty({ format: 'uuid' })
  eventId!: string;

  eventType!: string;

  /** The number the new attempt will have in the delivery log. */
  attempt!: number;
}

/** Body of POST /webhooks/{id}/replay: a time range of events (at most 7 days). */
export class ReplayInputDto {
  /** Inclusive start of the range (event creation time). */
  @ApiProperty({ format: 'date-time', example: '2026-11-22T00:00:00Z' })
  @IsRfc3339()
  from!: string;

  /** Exclusive end of the range. */
  @ApiProperty({ format: 'date-time', example: '2026-11-23T00:00:00Z' })
  @IsRfc3339()
  to!: string;
}

export class ReplayResultDto {
  /** Events of the range this endpoint subscribes to that were queued again (oldest first). */
  queued!: number;

  /** Events of the range already pending for this endpoint (left as they are). */
  alreadyPending!: number;

  /**
   * When the range held more than 1,000 events, the creation time of the first one not queued:
   * replay again from there (after the cooldown). Null when the whole range was queued.
   */
  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  resumeFrom!: string | null;
}
