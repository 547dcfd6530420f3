import { IsNotEmpty, IsOptional, IsString, MaxLength } from 'class-validator';
import { IsHttpUrl } from '../../common/validators';
import { parseWithSchema } from '../credentials-schema';

/**
 * X: what the OAuth flow stores for a channel (never sent by users; X connects through
 * `POST /api/channels/connect/x`).
 */
export class XCredentialsDto {
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

  /** X API host (https://api.x.com, or a test server). */
  @IsHttpUrl({ message: 'must be an http(s) URL' })
  apiBaseUrl!: string;

  /** The account's numeric user id, once connected. */
  @IsOptional()
  @IsString()
  userId?: string;
}

export interface XCredentials {
  accessToken: string;
  apiBaseUrl: string;
  userId: string | null;
}

export function parseXCredentials(raw: unknown): XCredentials {
  const obj = parseWithSchema(XCredentialsDto, raw, 'X credentials');
  return {
    accessToken: obj.accessToken as string,
    apiBaseUrl: (obj.apiBaseUrl as string).replace(/\/+$/, ''),
    userId: typeof obj.userId === 'string' ? obj.userId : null,
  };
}
