import { IsOptional, IsString, Matches } from 'class-validator';
import { OAuthCredentials, OAuthCredentialsDto, optionalField, parseOAuthCredentials } from '../oauth.credentials';

/** A Reddit username (3 to 20 letters, digits, `_` or `-`). */
export const REDDIT_USERNAME = /^[A-Za-z0-9_-]{3,20}$/;

/**
 * Reddit: what the OAuth flow stores for a channel. One channel is one Reddit account; the subreddit
 * is chosen per post (`options.subreddit`), since an account posts to many (docs/adr/0054).
 */
export class RedditCredentialsDto extends OAuthCredentialsDto {
  /** The account's username, read at connection (`GET /api/v1/me`), for lookups and links. */
  @IsOptional()
  @IsString()
  @Matches(REDDIT_USERNAME, { message: 'must be a Reddit username' })
  username?: string;
}

export interface RedditCredentials extends OAuthCredentials {
  username: string | null;
}

export function parseRedditCredentials(raw: unknown): RedditCredentials {
  const { fields, ...tokens } = parseOAuthCredentials(RedditCredentialsDto, raw, 'Reddit credentials');
  return { ...tokens, username: optionalField(fields, 'username') };
}
