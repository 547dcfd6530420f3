import { ApiProperty } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsBoolean, IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { IsHttpUrl } from '../../common/validators';
import { EVENT_TYPES, EventType } from '../../events/event-payloads';

/** The body of `POST /webhooks` and `PUT /webhooks/:id` (PUT replaces every field; omitted ones take their defaults). */
export class WebhookInputDto {
  /**
   * Where events are POSTed. `https` is required and private, loopback and link-local hosts are
   * refused unless the service runs with `OUTBOUND_ALLOW_PRIVATE=true`.
   */
  @ApiProperty({ example: 'https://example.com/hooks/social', format: 'uri' })
  @IsHttpUrl()
  @MaxLength(2048)
  url!: string;

  /** Event types to receive. Empty or absent: every type, including types added later. */
  @ApiProperty({ required: false, enum: EVENT_TYPES, isArray: true, example: ['post.published', 'post.failed'] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(EVENT_TYPES.length * 4)
  @IsIn(EVENT_TYPES, { each: true, message: `each value must be one of ${EVENT_TYPES.join(', ')}` })
  events?: EventType[];

  /** A note for humans, e.g. what consumes the endpoint. */
  @IsOptional()
  @IsString()
  @MaxLength(500)
  description?: string;

  /** False pauses deliveries. Setting it to true re-enables an endpoint the service disabled. Default true. */
  @IsOptional()
  @IsBoolean()
  enabled?: boolean;
}
