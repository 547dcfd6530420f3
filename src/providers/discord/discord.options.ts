import type { JSONSchemaType } from 'ajv';
import type { OptionsSchema } from '../provider-plugin';
import type { Problem } from '../social-provider.interface';
import { DISCORD_MAX_THREAD_NAME } from './discord.limits';

/** Longest name a webhook message may be sent under. */
export const DISCORD_MAX_USERNAME = 80;
/** Tags a forum post may carry. */
export const DISCORD_MAX_APPLIED_TAGS = 5;

/** A Discord target's own settings (`targets[i].options`), as the adapter reads them. */
export interface DiscordOptions {
  /** Title of the forum post the message starts (`thread_name`); default: the text's first line. */
  threadName?: string | null;
  /** Name the message is sent under instead of the webhook's (`username`). */
  username?: string | null;
  /** Avatar the message is sent with instead of the webhook's (`avatar_url`), https only. */
  avatarUrl?: string | null;
  /** No link previews under the message (flag SUPPRESS_EMBEDS). */
  suppressEmbeds?: boolean | null;
  /** Tag ids of the forum the post is tagged with (`applied_tags`). */
  appliedTags?: string[] | null;
}

/** The JSON Schema of Discord's options (`optionsSchema` in `GET /providers`), closed; none required. */
export const DISCORD_OPTIONS_SCHEMA: JSONSchemaType<DiscordOptions> & OptionsSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    threadName: {
      type: 'string',
      minLength: 1,
      maxLength: DISCORD_MAX_THREAD_NAME,
      nullable: true,
      description: `Title of the post a message to a forum channel starts (at most ${DISCORD_MAX_THREAD_NAME} characters; default: the first line of the text)`,
    },
    username: {
      type: 'string',
      minLength: 1,
      maxLength: DISCORD_MAX_USERNAME,
      nullable: true,
      description: `Name shown as the author instead of the webhook's (at most ${DISCORD_MAX_USERNAME} characters, without "discord" or "clyde")`,
    },
    avatarUrl: {
      type: 'string',
      maxLength: 2048,
      pattern: '^https://[^\\s]+$',
      nullable: true,
      description: "Avatar image shown instead of the webhook's (an https URL)",
    },
    suppressEmbeds: {
      type: 'boolean',
      nullable: true,
      description: 'Show no link previews (embeds) under the message',
    },
    appliedTags: {
      type: 'array',
      items: { type: 'string', pattern: '^[0-9]{17,20}$' },
      maxItems: DISCORD_MAX_APPLIED_TAGS,
      uniqueItems: true,
      nullable: true,
      description: `Tag ids of the forum channel applied to the post it starts (at most ${DISCORD_MAX_APPLIED_TAGS})`,
    },
  },
};

/** What the schema cannot say: the words Discord refuses in a webhook message's name. */
export function discordOptionProblems(options: Record<string, unknown> | undefined): Problem[] {
  const username = options?.username;
  if (typeof username === 'string' && /discord|clyde/i.test(username)) {
    return [
      { field: 'options.username', message: 'must not contain "discord" or "clyde": Discord refuses such names' },
    ];
  }
  return [];
}
