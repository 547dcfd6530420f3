import { IsOptional, IsString, Matches } from 'class-validator';
import { OAuthCredentials, OAuthCredentialsDto, optionalField, parseOAuthCredentials } from '../oauth.credentials';

/** A member (`urn:li:person:...`) or organization (`urn:li:organization:...`) URN. */
export const LINKEDIN_AUTHOR_URN = /^urn:li:(person|organization):[A-Za-z0-9_-]{1,64}$/;

/** LinkedIn: what the OAuth flow stores for a channel (`POST /api/channels/connect/linkedin`). */
export class LinkedInCredentialsDto extends OAuthCredentialsDto {
  /** Who the channel publishes as: the member's or the organization's URN, once connected. */
  @IsOptional()
  @IsString()
  @Matches(LINKEDIN_AUTHOR_URN, { message: 'must be a person or organization URN' })
  authorUrn?: string;
}

export interface LinkedInCredentials extends OAuthCredentials {
  /** Granted scopes; null when the token endpoint did not say. */
  scopes: string[] | null;
  authorUrn: string | null;
}

export function parseLinkedInCredentials(raw: unknown): LinkedInCredentials {
  const { fields, ...tokens } = parseOAuthCredentials(LinkedInCredentialsDto, raw, 'LinkedIn credentials');
  const scope = optionalField(fields, 'scope');
  return {
    ...tokens,
    scopes: scope !== null ? scope.split(/[\s,]+/).filter(Boolean) : null,
    authorUrn: optionalField(fields, 'authorUrn'),
  };
}
