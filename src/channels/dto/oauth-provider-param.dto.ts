import { IsString, Matches } from 'class-validator';

export class OAuthProviderParamDto {
  /** A provider id from `GET /api/providers`. */
  @IsString()
  @Matches(/^[a-z0-9_-]{1,32}$/, { message: 'provider must be a provider id' })
  provider!: string;
}
