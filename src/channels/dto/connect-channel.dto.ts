import { ApiExtraModels, ApiProperty, getSchemaPath } from '@nestjs/swagger';
import { IsIn, IsNotEmpty, IsObject, IsOptional, IsString, IsUrl, MaxLength } from 'class-validator';
import { PROVIDER_IDS, ProviderId } from '../../providers/social-provider.interface';

/** Mastodon: an access token of the account (scopes `read write`). */
export class MastodonCredentialsDto {
  /** Base URL of the instance. */
  @ApiProperty({ example: 'https://mastodon.social' })
  @IsUrl({ require_tld: false, require_protocol: true, protocols: ['http', 'https'] })
  instanceUrl!: string;

  @IsString()
  @IsNotEmpty()
  @MaxLength(4096)
  accessToken!: string;
}

/** Bluesky: the account's handle or DID and an app password. */
export class BlueskyCredentialsDto {
  @ApiProperty({ example: 'alice.bsky.social' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(255)
  identifier!: string;

  @IsString()
  @IsNotEmpty()
  @MaxLength(255)
  appPassword!: string;

  /** PDS base URL; default https://bsky.social. */
  @ApiProperty({ required: false, example: 'https://bsky.social' })
  @IsOptional()
  @IsUrl({ require_tld: false, require_protocol: true, protocols: ['http', 'https'] })
  serviceUrl?: string;
}

export const CREDENTIALS_DTO_BY_PROVIDER = {
  mastodon: MastodonCredentialsDto,
  bluesky: BlueskyCredentialsDto,
} as const;

@ApiExtraModels(MastodonCredentialsDto, BlueskyCredentialsDto)
export class ConnectChannelDto {
  @ApiProperty({ enum: PROVIDER_IDS })
  @IsIn(PROVIDER_IDS)
  provider!: ProviderId;

  /** Provider-specific credentials; they are verified with the provider, stored encrypted and never returned. */
  @ApiProperty({
    oneOf: [{ $ref: getSchemaPath(MastodonCredentialsDto) }, { $ref: getSchemaPath(BlueskyCredentialsDto) }],
  })
  @IsObject()
  credentials!: Record<string, unknown>;
}
