import type {
  DiscordOptions,
  FacebookOptions,
  GoogleBusinessOptions,
  InstagramOptions,
  LemmyOptions,
  PinterestOptions,
  RedditOptions,
  SandboxOptions,
  SlackOptions,
  TelegramOptions,
  TiktokOptions,
  TumblrOptions,
  WordpressOptions,
  YoutubeOptions,
} from './generated/types.gen';

/**
 * A network's own settings for a target (`targets[i].options`), by provider id: the JSON Schema each
 * network lists as `optionsSchema` in `GET /providers`, as the OpenAPI document's `<Network>Options`
 * components. Networks not listed take no options. A network added to the service with options is
 * added here (the client's spec checks the list against `GET /providers`).
 */
export interface ProviderOptions {
  sandbox: SandboxOptions;
  instagram: InstagramOptions;
  facebook: FacebookOptions;
  telegram: TelegramOptions;
  discord: DiscordOptions;
  slack: SlackOptions;
  pinterest: PinterestOptions;
  google_business: GoogleBusinessOptions;
  youtube: YoutubeOptions;
  tiktok: TiktokOptions;
  reddit: RedditOptions;
  tumblr: TumblrOptions;
  wordpress: WordpressOptions;
  lemmy: LemmyOptions;
}
