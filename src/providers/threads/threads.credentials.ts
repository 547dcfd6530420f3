import { IsOptional, IsString } from 'class-validator';
import { OAuthCredentials, OAuthCredentialsDto, optionalField, parseOAuthCredentials } from '../oauth.credentials';

/**
 * Threads: what the OAuth flow stores for a channel (`POST /api/channels/connect/threads`). The long-lived
 * access token is renewed by itself; there is no refresh token.
 */
export class ThreadsCredentialsDto extends OAuthCredentialsDto {
  /** The Threads user id, once connected. */
  @IsOptional()
  @IsString()
  userId?: string;

  /** The Threads username, once connected. */
  @IsOptional()
  @IsString()
  username?: string;
}

export interface ThreadsCredentials extends OAuthCredentials {
  userId: string | null;
  username: string | null;
}

export function parseThreadsCredentials(raw: unknown): ThreadsCredentials {
  const { fields, ...tokens } = parseOAuthCredentials(ThreadsCredentialsDto, raw, 'Threads credentials');
  return { ...tokens, userId: optionalField(fields, 'userId'), username: optionalField(fields, 'username') };
}
