import { ApiProperty } from '@nestjs/swagger';
import { VideoLimitsDto } from './video-limits.dto';

export class ProviderLimitsDto {
  /** Maximum post length, counted as the network counts it. */
  maxCharacters!: number;
  maxMedia!: number;
  maxImageBytes!: number;
  supportedMimeTypes!: string[];
  /** Whether the network takes threads: a post's follow-up parts published as a chain of replies. */
  threads!: boolean;
  /** What the network takes as video through this service; null when it takes none (or not yet). */
  @ApiProperty({ type: VideoLimitsDto, nullable: true })
  video!: VideoLimitsDto | null;
  /** Whether posts may carry a `firstComment`, published as a comment on the post once it is live. */
  firstComment!: boolean;
}

export class ProviderDto {
  /** Stable id, used as `provider` everywhere in the API. */
  id!: string;
  /** Human name of the network. */
  name!: string;

  /** `credentials`: `POST /api/channels` with credentials; `oauth`: `POST /api/channels/connect/{provider}`. */
  @ApiProperty({ enum: ['credentials', 'oauth'] })
  connect!: 'credentials' | 'oauth';

  /**
   * The version of the network's API this server calls (`v25.0` for Meta's Graph API, `202610` for
   * LinkedIn, `2` for X): the pinned one, or the one its setting names.
   */
  @ApiProperty({ example: 'v25.0' })
  apiVersion!: string;
  /** The day the network retires that version, where it states one (YYYY-MM-DD); null otherwise. */
  @ApiProperty({ type: String, format: 'date', nullable: true, example: '2028-07-29' })
  apiSunset!: string | null;
  /** False for an OAuth network whose app credentials are not configured on this server. */
  enabled!: boolean;

  /** Limits of a typical account; a connected channel carries its own. */
  limits!: ProviderLimitsDto;

  /**
   * The JSON Schema (draft 07) of the network's own settings for a target (`targets[i].options` of a
   * post); closed: unknown fields are refused. Null when the network takes no options.
   */
  @ApiProperty({ type: 'object', additionalProperties: true, nullable: true })
  optionsSchema!: Record<string, unknown> | null;
}

export class ProviderListDto {
  data!: ProviderDto[];
}
