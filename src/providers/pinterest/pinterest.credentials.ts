import { IsOptional, IsString, Matches } from 'class-validator';
import { OAuthCredentials, OAuthCredentialsDto, optionalField, parseOAuthCredentials } from '../oauth.credentials';

/** Pinterest's numeric ids (boards, sections, pins). */
export const PINTEREST_ID = /^\d{1,32}$/;

/**
 * Pinterest: what the OAuth flow stores for a channel. One channel is one board of the account
 * (docs/adr/0038): every pin the channel publishes goes to `boardId`.
 */
export class PinterestCredentialsDto extends OAuthCredentialsDto {
  /** The board the channel pins to, once chosen at connection. */
  @IsOptional()
  @IsString()
  @Matches(PINTEREST_ID, { message: 'must be a Pinterest board id' })
  boardId?: string;

  /** The account's username, for links to its profile. */
  @IsOptional()
  @IsString()
  @Matches(/^[A-Za-z0-9_.-]{1,64}$/, { message: 'must be a Pinterest username' })
  username?: string;
}

export interface PinterestCredentials extends OAuthCredentials {
  boardId: string | null;
  username: string | null;
}

export function parsePinterestCredentials(raw: unknown): PinterestCredentials {
  const { fields, ...tokens } = parseOAuthCredentials(PinterestCredentialsDto, raw, 'Pinterest credentials');
  return { ...tokens, boardId: optionalField(fields, 'boardId'), username: optionalField(fields, 'username') };
}
