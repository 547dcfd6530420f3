import { IsOptional, IsString } from 'class-validator';
import { OAuthCredentials, OAuthCredentialsDto, optionalField, parseOAuthCredentials } from '../oauth.credentials';

/** X: what the OAuth flow stores for a channel (`POST /api/channels/connect/x`). */
export class XCredentialsDto extends OAuthCredentialsDto {
  /** The account's numeric user id, once connected. */
  @IsOptional()
  @IsString()
  userId?: string;
}

export interface XCredentials extends OAuthCredentials {
  userId: string | null;
}

export function parseXCredentials(raw: unknown): XCredentials {
  const { fields, ...tokens } = parseOAuthCredentials(XCredentialsDto, raw, 'X credentials');
  return { ...tokens, userId: optionalField(fields, 'userId') };
}
