import { IsOptional, IsString, Matches } from 'class-validator';
import { OAuthCredentials, OAuthCredentialsDto, optionalField, parseOAuthCredentials } from '../oauth.credentials';

/**
 * Facebook Pages: what the OAuth flow stores for a channel (`POST /api/channels/connect/facebook`,
 * then the caller chooses Pages). Each channel keeps its Page's access token, which does not expire.
 */
export class FacebookCredentialsDto extends OAuthCredentialsDto {
  /** The Page this channel publishes as, once chosen. */
  @IsOptional()
  @IsString()
  @Matches(/^\d{1,32}$/, { message: 'must be a numeric Page id' })
  pageId?: string;
}

export interface FacebookCredentials extends OAuthCredentials {
  pageId: string | null;
}

export function parseFacebookCredentials(raw: unknown): FacebookCredentials {
  const { fields, ...tokens } = parseOAuthCredentials(FacebookCredentialsDto, raw, 'Facebook credentials');
  return { ...tokens, pageId: optionalField(fields, 'pageId') };
}
