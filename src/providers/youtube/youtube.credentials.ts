import { IsOptional, IsString, Matches } from 'class-validator';
import { OAuthCredentials, OAuthCredentialsDto, optionalField, parseOAuthCredentials } from '../oauth.credentials';

/** A YouTube channel id (`UC` and 22 characters). */
export const YOUTUBE_CHANNEL_ID = /^UC[A-Za-z0-9_-]{22}$/;

/** YouTube: what the OAuth flow stores for a channel (`POST /api/channels/connect/youtube`). */
export class YouTubeCredentialsDto extends OAuthCredentialsDto {
  /** The YouTube channel the videos go to, chosen at connection when the Google account has several. */
  @IsOptional()
  @IsString()
  @Matches(YOUTUBE_CHANNEL_ID, { message: 'must be a YouTube channel id (UC...)' })
  channelId?: string;
}

export interface YouTubeCredentials extends OAuthCredentials {
  channelId: string | null;
}

export function parseYouTubeCredentials(raw: unknown): YouTubeCredentials {
  const { fields, ...tokens } = parseOAuthCredentials(YouTubeCredentialsDto, raw, 'YouTube credentials');
  return { ...tokens, channelId: optionalField(fields, 'channelId') };
}
