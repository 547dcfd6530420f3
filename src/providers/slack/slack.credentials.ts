import { IsOptional, IsString, MaxLength } from 'class-validator';
import { OAuthCredentials, OAuthCredentialsDto, optionalField, parseOAuthCredentials } from '../oauth.credentials';

/** Slack: what the OAuth flow stores for a channel (`POST /api/channels/connect/slack`): the bot token and the channel. */
export class SlackCredentialsDto extends OAuthCredentialsDto {
  /** The workspace (team) id. */
  @IsOptional()
  @IsString()
  @MaxLength(64)
  teamId?: string;

  /** The conversation the channel posts to, chosen at connection. */
  @IsOptional()
  @IsString()
  @MaxLength(64)
  channelId?: string;

  /** The workspace's address (`https://acme.slack.com/`), for message links. */
  @IsOptional()
  @IsString()
  @MaxLength(300)
  workspaceUrl?: string;
}

export interface SlackCredentials extends OAuthCredentials {
  teamId: string | null;
  channelId: string | null;
  workspaceUrl: string | null;
}

export function parseSlackCredentials(raw: unknown): SlackCredentials {
  const { fields, ...tokens } = parseOAuthCredentials(SlackCredentialsDto, raw, 'Slack credentials');
  return {
    ...tokens,
    teamId: optionalField(fields, 'teamId'),
    channelId: optionalField(fields, 'channelId'),
    workspaceUrl: optionalField(fields, 'workspaceUrl'),
  };
}
