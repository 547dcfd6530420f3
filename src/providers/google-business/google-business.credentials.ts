import { IsOptional, IsString, Matches } from 'class-validator';
import { OAuthCredentials, OAuthCredentialsDto, optionalField, parseOAuthCredentials } from '../oauth.credentials';

/** Resource names of the Business Profile APIs. */
export const GBP_ACCOUNT_NAME = /^accounts\/\d{1,32}$/;
export const GBP_LOCATION_NAME = /^locations\/\d{1,32}$/;

/**
 * Google Business Profile: what the OAuth flow stores for a channel. One channel is one location
 * (a business on Google Maps and Search), reached through the account that manages it.
 */
export class GoogleBusinessCredentialsDto extends OAuthCredentialsDto {
  /** The account managing the location (`accounts/{id}`), once chosen at connection. */
  @IsOptional()
  @IsString()
  @Matches(GBP_ACCOUNT_NAME, { message: 'must be an account name (accounts/{id})' })
  accountName?: string;

  /** The location the channel posts to (`locations/{id}`), once chosen at connection. */
  @IsOptional()
  @IsString()
  @Matches(GBP_LOCATION_NAME, { message: 'must be a location name (locations/{id})' })
  locationName?: string;
}

export interface GoogleBusinessCredentials extends OAuthCredentials {
  accountName: string | null;
  locationName: string | null;
}

export function parseGoogleBusinessCredentials(raw: unknown): GoogleBusinessCredentials {
  const { fields, ...tokens } = parseOAuthCredentials(
    GoogleBusinessCredentialsDto,
    raw,
    'Google Business Profile credentials',
  );
  return {
    ...tokens,
    accountName: optionalField(fields, 'accountName'),
    locationName: optionalField(fields, 'locationName'),
  };
}
