import { IsOptional, IsString } from 'class-validator';
import { OAuthCredentials, OAuthCredentialsDto, optionalField, parseOAuthCredentials } from '../oauth.credentials';

/**
 * Threads and Instagram: what the OAuth flow stores for a channel (`POST /api/channels/connect/threads`
 * or `.../instagram`). The long-lived access token is renewed by itself; there is no refresh token.
 */
export class MetaAccountCredentialsDto extends OAuthCredentialsDto {
  /** The account's id (Threads user id, Instagram professional account id), once connected. */
  @IsOptional()
  @IsString()
  userId?: string;

  /** The account's username, once connected. */
  @IsOptional()
  @IsString()
  username?: string;
}

export interface MetaAccountCredentials extends OAuthCredentials {
  userId: string | null;
  username: string | null;
}

/** `label` names the network in messages ("Threads credentials"). */
export function parseMetaAccountCredentials(raw: unknown, label: string): MetaAccountCredentials {
  const { fields, ...tokens } = parseOAuthCredentials(MetaAccountCredentialsDto, raw, label);
  return { ...tokens, userId: optionalField(fields, 'userId'), username: optionalField(fields, 'username') };
}
