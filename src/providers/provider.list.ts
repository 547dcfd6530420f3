import { blueskyPlugin } from './bluesky/bluesky.provider';
import { facebookPlugin } from './facebook/facebook.provider';
import { googleBusinessPlugin } from './google-business/google-business.provider';
import { instagramPlugin } from './instagram/instagram.provider';
import { linkedinPlugin } from './linkedin/linkedin.provider';
import { mastodonPlugin } from './mastodon/mastodon.provider';
import { pinterestPlugin } from './pinterest/pinterest.provider';
import { sandboxPlugin } from './sandbox/sandbox.provider';
import { threadsPlugin } from './threads/threads.provider';
import { xPlugin } from './x/x.provider';

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
  pinterestPlugin,
  googleBusinessPlugin,
] as const;

/** Identifier of a registered social network ('mastodon' | 'bluesky' | ...). */
export type ProviderId = (typeof PROVIDER_PLUGINS)[number]['id'];

export const PROVIDER_IDS: readonly ProviderId[] = PROVIDER_PLUGINS.map((p) => p.id);
