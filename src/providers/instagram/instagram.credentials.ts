import { IsOptional, IsString } from 'class-validator';
import { OAuthCredentials, OAuthCredentialsDto, optionalField, parseOAuthCredentials } from '../oauth.credentials';

/**
 * Instagram: what the OAuth flow stores for a channel (`POST /api/channels/connect/instagram`). The long-lived
 * access token is renewed by itself; there is no refresh token.
 */
export class InstagramCredentialsDto extends OAuthCredentialsDto {
  /** The Instagram professional account id, once connected. */
  @IsOptional()
  @IsString()
  userId?: string;

  /** The Instagram username, once connected. */
  @IsOptional()
  @IsString()
  username?: string;
}

export interface InstagramCredentials extends OAuthCredentials {
  userId: string | null;
  username: string | null;
}

export function parseInstagramCredentials(raw: unknown): InstagramCredentials {
  const { fields, ...tokens } = parseOAuthCredentials(InstagramCredentialsDto, raw, 'Instagram credentials');
  return { ...tokens, userId: optionalField(fields, 'userId'), username: optionalField(fields, 'username') };
}
