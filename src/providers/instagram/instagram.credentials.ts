import { IsNotEmpty, IsOptional, IsString, MaxLength } from 'class-validator';
import { IsHttpUrl } from '../../common/validators';
import { parseWithSchema } from '../credentials-schema';

/**
 * Instagram: what the OAuth flow stores for a channel (never sent by users; Instagram connects through
 * `POST /api/channels/connect/instagram`). The long-lived access token is renewed by itself; there is
 * no refresh token.
 */
export class InstagramCredentialsDto {
  @IsString()
  @IsNotEmpty()
  @MaxLength(4096)
  accessToken!: string;

  @IsOptional()
  @IsString()
  @MaxLength(4096)
  refreshToken?: string | null;

  /** ISO date the access token expires. */
  @IsOptional()
  @IsString()
  expiresAt?: string | null;

  /** Permissions granted, comma-separated. */
  @IsOptional()
  @IsString()
  @MaxLength(1024)
  scope?: string | null;

  /** Instagram API host (https://graph.instagram.com, or a test server). */
  @IsHttpUrl({ message: 'must be an http(s) URL' })
  apiBaseUrl!: string;

  /** The Instagram professional account id, once connected. */
  @IsOptional()
  @IsString()
  userId?: string;

  /** The Instagram username, once connected. */
  @IsOptional()
  @IsString()
  username?: string;
}

export interface InstagramCredentials {
  accessToken: string;
  apiBaseUrl: string;
  userId: string | null;
  username: string | null;
}

export function parseInstagramCredentials(raw: unknown): InstagramCredentials {
  const obj = parseWithSchema(InstagramCredentialsDto, raw, 'Instagram credentials');
  return {
    accessToken: obj.accessToken as string,
    apiBaseUrl: (obj.apiBaseUrl as string).replace(/\/+$/, ''),
    userId: typeof obj.userId === 'string' ? obj.userId : null,
    username: typeof obj.username === 'string' ? obj.username : null,
  };
}
