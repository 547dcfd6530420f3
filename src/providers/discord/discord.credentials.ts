import { ApiProperty } from '@nestjs/swagger';
import { IsString, Matches, MaxLength } from 'class-validator';
import { parseWithSchema } from '../credentials-schema';
import { InvalidCredentialsError } from '../provider.errors';
import { DISCORD_API_VERSION } from './discord.limits';

/** Discord: a channel's webhook URL (Server Settings > Integrations > Webhooks > Copy Webhook URL). */
export class DiscordCredentialsDto {
  /** The webhook's URL, `https://discord.com/api/webhooks/<id>/<token>`; it is a secret (its token posts to the channel). */
  // `password`: a secret, masked in the console's connect form.
  @ApiProperty({
    example: 'https://discord.com/api/webhooks/1234567890123456789/AbCdEfGhIjKlMnOpQrStUvWxYz0123456789',
    format: 'password',
  })
  @IsString()
  @MaxLength(300)
  @Matches(/^https?:\/\/[^/?#]+\/api(\/v\d+)?\/webhooks\/\d{1,20}\/[\w-]{20,100}\/?(\?thread_id=\d{1,20})?$/, {
    message: 'must be a Discord webhook URL (https://discord.com/api/webhooks/<id>/<token>)',
  })
  webhookUrl!: string;
}

export interface DiscordCredentials {
  /** `{origin}/api/v10/webhooks/{id}/{token}`, without query: always the pinned API version. */
  webhookUrl: string;
  origin: string;
  webhookId: string;
  /** A thread of the channel to post in (`?thread_id=` of the URL), or null. */
  threadId: string | null;
  /** Learnt at connection: for message links `discord.com/channels/<guild>/<channel>/<message>`. */
  guildId: string | null;
  channelId: string | null;
  /** The channel is a forum (or media) channel: every message starts a post, named with `thread_name`. */
  forum: boolean;
}

/**
 * Validates Discord credentials (given or stored) and checks the webhook is on one of `origins`
 * (Discord's hosts; a test's fake in tests), so a webhook URL can never send the service elsewhere.
 */
export function parseDiscordCredentials(raw: unknown, origins: readonly string[]): DiscordCredentials {
  const obj = parseWithSchema(DiscordCredentialsDto, raw, 'Discord credentials');
  const url = new URL((obj.webhookUrl as string).trim());
  if (url.username || url.password || !origins.includes(url.origin)) {
    throw new InvalidCredentialsError(`webhookUrl must be a webhook on ${origins.join(', ')}`);
  }
  const match = /^\/api(?:\/v\d+)?\/webhooks\/(\d+)\/([\w-]+)\/?$/.exec(url.pathname);
  if (!match) throw new InvalidCredentialsError('webhookUrl is not a Discord webhook URL');
  const text = (name: string) => (typeof obj[name] === 'string' ? obj[name] : null);
  return {
    // The version Discord shows in a webhook's URL (none) would mean its default, v6: pin ours.
    webhookUrl: `${url.origin}/api/${DISCORD_API_VERSION}/webhooks/${match[1]}/${match[2]}`,
    origin: url.origin,
    webhookId: match[1],
    threadId: url.searchParams.get('thread_id') ?? text('threadId'),
    guildId: text('guildId'),
    channelId: text('channelId'),
    forum: obj.forum === true,
  };
}
