import { blueskyPlugin } from './bluesky/bluesky.provider';
import { discordPlugin } from './discord/discord.provider';
import { facebookPlugin } from './facebook/facebook.provider';
import { googleBusinessPlugin } from './google-business/google-business.provider';
import { instagramPlugin } from './instagram/instagram.provider';
import { lemmyPlugin } from './lemmy/lemmy.provider';
import { linkedinPlugin } from './linkedin/linkedin.provider';
import { mastodonPlugin } from './mastodon/mastodon.provider';
import { nostrPlugin } from './nostr/nostr.provider';
import { pinterestPlugin } from './pinterest/pinterest.provider';
import { redditPlugin } from './reddit/reddit.provider';
import { sandboxPlugin } from './sandbox/sandbox.provider';
import { slackPlugin } from './slack/slack.provider';
import { telegramPlugin } from './telegram/telegram.provider';
import { wordpressPlugin } from './wordpress/wordpress.provider';
import { threadsPlugin } from './threads/threads.provider';
import { tiktokPlugin } from './tiktok/tiktok.provider';
import { tumblrPlugin } from './tumblr/tumblr.provider';
import { xPlugin } from './x/x.provider';
import { youtubePlugin } from './youtube/youtube.provider';

/**
 * Every registered social network, in the order the API lists them (OpenAPI enums, `oneOf`).
 * Registering a provider is one entry here; see docs/adding-a-provider.md.
 */
export const PROVIDER_PLUGINS = [
  sandboxPlugin,
  mastodonPlugin,
  blueskyPlugin,
  xPlugin,
  linkedinPlugin,
  threadsPlugin,
  instagramPlugin,
  facebookPlugin,
  telegramPlugin,
  discordPlugin,
  slackPlugin,
  pinterestPlugin,
  googleBusinessPlugin,
  youtubePlugin,
  tiktokPlugin,
  redditPlugin,
  tumblrPlugin,
  wordpressPlugin,
  lemmyPlugin,
  nostrPlugin,
] as const;

/** Identifier of a registered social network ('mastodon' | 'bluesky' | ...). */
export type ProviderId = (typeof PROVIDER_PLUGINS)[number]['id'];

export const PROVIDER_IDS: readonly ProviderId[] = PROVIDER_PLUGINS.map((p) => p.id);

/** The OpenAPI schema name of a network's options (`sandbox` -> `SandboxOptions`, `google_business` -> `GoogleBusinessOptions`). */
export function optionsSchemaName(id: string): string {
  return `${id.replace(/(^|_)([a-z])/g, (_m, _sep, c: string) => c.toUpperCase())}Options`;
}

/** The networks that take options, each with its schema and its OpenAPI name, in registration order. */
export const PROVIDER_OPTIONS_SCHEMAS = PROVIDER_PLUGINS.flatMap((p) =>
  p.optionsSchema ? [{ id: p.id, name: optionsSchemaName(p.id), schema: p.optionsSchema }] : [],
);
