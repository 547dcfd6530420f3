import { ApiProperty } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
} from 'class-validator';
import type { ValidationArguments } from 'class-validator';
import { IsHttpUrl } from '../../common/validators';
import { PROVIDER_IDS, ProviderId } from '../../providers/provider.list';

export const CONNECT_LINK_MIN_SECONDS = 300;
export const CONNECT_LINK_MAX_SECONDS = 604_800;
export const CONNECT_LINK_DEFAULT_SECONDS = 3600;

/** The message naming the ids that are no network of this service. */
function unknownProviders(args: ValidationArguments): string {
  const given = Array.isArray(args.value) ? (args.value as unknown[]) : [args.value];
  const unknown = given.filter((v) => !(PROVIDER_IDS as readonly unknown[]).includes(v)).map(String);
  return `unknown network ${unknown.join(', ')} (known: ${PROVIDER_IDS.join(', ')})`;
}

/** The body of `POST /connect-links`. */
export class CreateConnectLinkDto {
  /**
   * Where the person is sent back (303) when they are done, with `connectLinkId` and
   * `status=connected&channelId=...` or `status=error&error=...` added to the query. `https`; plain
   * `http` only to a loopback host (localhost, 127.0.0.1, [::1]) outside production.
   */
  @ApiProperty({ example: 'https://app.example.com/integrations/social/done', format: 'uri', maxLength: 2048 })
  @IsHttpUrl()
  @MaxLength(2048)
  redirectUrl!: string;

  /**
   * The networks the page offers, in this order. Default: every network enabled on this server (the
   * networks connected by OAuth only where their app is configured) and the sandbox.
   */
  @ApiProperty({ required: false, enum: PROVIDER_IDS, isArray: true, example: ['sandbox', 'mastodon', 'linkedin'] })
  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(PROVIDER_IDS.length)
  @ArrayUnique()
  @IsIn(PROVIDER_IDS, { each: true, message: unknownProviders })
  providers?: ProviderId[];

  /** Your product's name, shown on the page ("Connect your accounts to Acme"). */
  @ApiProperty({ required: false, example: 'Acme', maxLength: 100 })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  brandName?: string;

  /** How long the link may be used, in seconds: 300 (5 minutes) to 604800 (7 days). Default 3600. */
  @ApiProperty({
    required: false,
    type: 'integer',
    minimum: CONNECT_LINK_MIN_SECONDS,
    maximum: CONNECT_LINK_MAX_SECONDS,
    default: CONNECT_LINK_DEFAULT_SECONDS,
  })
  @IsOptional()
  @IsInt()
  @Min(CONNECT_LINK_MIN_SECONDS)
  @Max(CONNECT_LINK_MAX_SECONDS)
  expiresInSeconds?: number;
}
