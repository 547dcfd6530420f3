import { IsNotEmpty, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { IsHttpUrl } from '../../common/validators';
import { parseWithSchema } from '../credentials-schema';

/**
 * Facebook Pages: what the OAuth flow stores for a channel (never sent by users; Facebook connects
 * through `POST /api/channels/connect/facebook`, then the caller chooses Pages). Each channel keeps
 * its Page's access token, which does not expire.
 */
export class FacebookCredentialsDto {
  /** The Page access token (or, before a Page is chosen, the user's). */
  @IsString()
  @IsNotEmpty()
  @MaxLength(4096)
  accessToken!: string;

  @IsOptional()
  @IsString()
  @MaxLength(4096)
  refreshToken?: string | null;

  /** ISO date the access token expires; null for Page tokens, which do not. */
  @IsOptional()
  @IsString()
  expiresAt?: string | null;

  /** Permissions granted, comma-separated. */
  @IsOptional()
  @IsString()
  @MaxLength(2048)
  scope?: string | null;

  /** Graph API host (https://graph.facebook.com, or a test server). */
  @IsHttpUrl({ message: 'must be an http(s) URL' })
  apiBaseUrl!: string;

  /** The Page this channel publishes as, once chosen. */
  @IsOptional()
  @IsString()
  @Matches(/^\d{1,32}$/, { message: 'must be a numeric Page id' })
  pageId?: string;
}

export interface FacebookCredentials {
  accessToken: string;
  apiBaseUrl: string;
  pageId: string | null;
}

export function parseFacebookCredentials(raw: unknown): FacebookCredentials {
  const obj = parseWithSchema(FacebookCredentialsDto, raw, 'Facebook credentials');
  return {
    accessToken: obj.accessToken as string,
    apiBaseUrl: (obj.apiBaseUrl as string).replace(/\/+$/, ''),
    pageId: typeof obj.pageId === 'string' ? obj.pageId : null,
  };
}
