import { IsOptional, IsString, Matches } from 'class-validator';
import { OAuthCredentials, OAuthCredentialsDto, optionalField, parseOAuthCredentials } from '../oauth.credentials';

/** TikTok: what the OAuth flow stores for a channel (`POST /api/channels/connect/tiktok`). */
export class TikTokCredentialsDto extends OAuthCredentialsDto {
  /** The user's id for this app (`open_id`), once connected. */
  @IsOptional()
  @IsString()
  @Matches(/^[A-Za-z0-9._-]{1,128}$/, { message: 'must be a TikTok open_id' })
  openId?: string;

  /** The user's TikTok username, for post URLs. */
  @IsOptional()
  @IsString()
  @Matches(/^[A-Za-z0-9._]{1,64}$/, { message: 'must be a TikTok username' })
  username?: string;
}

export interface TikTokCredentials extends OAuthCredentials {
  openId: string | null;
  username: string | null;
}

export function parseTikTokCredentials(raw: unknown): TikTokCredentials {
  const { fields, ...tokens } = parseOAuthCredentials(TikTokCredentialsDto, raw, 'TikTok credentials');
  return { ...tokens, openId: optionalField(fields, 'openId'), username: optionalField(fields, 'username') };
}
