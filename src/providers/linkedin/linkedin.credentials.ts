import { IsNotEmpty, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { IsHttpUrl } from '../../common/validators';
import { parseWithSchema } from '../credentials-schema';

/** A member (`urn:li:person:...`) or organization (`urn:li:organization:...`) URN. */
export const LINKEDIN_AUTHOR_URN = /^urn:li:(person|organization):[A-Za-z0-9_-]{1,64}$/;

/**
 * LinkedIn: what the OAuth flow stores for a channel (never sent by users; LinkedIn connects through
 * `POST /api/channels/connect/linkedin`).
 */
export class LinkedInCredentialsDto {
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

  /** Scopes the member granted, space-separated. */
  @IsOptional()
  @IsString()
  @MaxLength(1024)
  scope?: string | null;

  /** LinkedIn API host (https://api.linkedin.com, or a test server). */
  @IsHttpUrl({ message: 'must be an http(s) URL' })
  apiBaseUrl!: string;

  /** Who the channel publishes as: the member's or the organization's URN, once connected. */
  @IsOptional()
  @IsString()
  @Matches(LINKEDIN_AUTHOR_URN, { message: 'must be a person or organization URN' })
  authorUrn?: string;
}

export interface LinkedInCredentials {
  accessToken: string;
  apiBaseUrl: string;
  /** Granted scopes; null when the token endpoint did not say. */
  scopes: string[] | null;
  authorUrn: string | null;
}

export function parseLinkedInCredentials(raw: unknown): LinkedInCredentials {
  const obj = parseWithSchema(LinkedInCredentialsDto, raw, 'LinkedIn credentials');
  return {
    accessToken: obj.accessToken as string,
    apiBaseUrl: (obj.apiBaseUrl as string).replace(/\/+$/, ''),
    scopes: typeof obj.scope === 'string' ? obj.scope.split(/[\s,]+/).filter(Boolean) : null,
    authorUrn: typeof obj.authorUrn === 'string' ? obj.authorUrn : null,
  };
}
