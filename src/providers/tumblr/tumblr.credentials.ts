import { IsOptional, IsString, Matches } from 'class-validator';
import { OAuthCredentials, OAuthCredentialsDto, optionalField, parseOAuthCredentials } from '../oauth.credentials';

/** A Tumblr blog name (the part before `.tumblr.com`): letters, digits and `-`, at most 32. */
export const TUMBLR_BLOG_NAME = /^[A-Za-z0-9-]{1,32}$/;

/**
 * Tumblr: what the OAuth flow stores for a channel. One channel is one blog of the account, chosen at
 * connection among the blogs the account may post to (docs/adr/0054).
 */
export class TumblrCredentialsDto extends OAuthCredentialsDto {
  /** The blog the channel posts to, once chosen at connection. */
  @IsOptional()
  @IsString()
  @Matches(TUMBLR_BLOG_NAME, { message: 'must be a Tumblr blog name' })
  blog?: string;
}

export interface TumblrCredentials extends OAuthCredentials {
  blog: string | null;
}

export function parseTumblrCredentials(raw: unknown): TumblrCredentials {
  const { fields, ...tokens } = parseOAuthCredentials(TumblrCredentialsDto, raw, 'Tumblr credentials');
  return { ...tokens, blog: optionalField(fields, 'blog') };
}
