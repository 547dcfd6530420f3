import { join } from 'node:path';
import type { Description } from './description';
import { LexiconDescription } from './lexicon-description';
import { OpenApiDescription } from './openapi-description';
import { ReferenceDescription } from './reference-description';

/**
 * The networks' own descriptions, recorded under test/fixtures/networks/<id>/ (SOURCE.md there says
 * from where and when), each loaded once per process.
 */
const FIXTURES = join(__dirname, '../../fixtures/networks');
const cache = new Map<string, Description>();

function once(id: string, load: () => Description): Description {
  let found = cache.get(id);
  if (!found) {
    found = load();
    cache.set(id, found);
  }
  return found;
}

/** Bluesky: the AT Protocol lexicons of the methods and records the adapter uses. */
export const blueskyDescription = (): Description =>
  once('bluesky', () =>
    LexiconDescription.load(join(FIXTURES, 'bluesky/lexicons'), 'the AT Protocol lexicons (bluesky-social/atproto)'),
  );

/** Discord: the OpenAPI document of discord/discord-api-spec, base path /api/v10 (its server URL). */
export const discordDescription = (): Description =>
  once('discord', () =>
    OpenApiDescription.load(join(FIXTURES, 'discord/openapi.json'), {
      source: 'Discord API v10 OpenAPI (discord/discord-api-spec)',
    }),
  );

/** X: the OpenAPI document of the X API v2 as xdevplatform/xdk pins it (api.x.com/2/openapi.json). */
export const xDescription = (): Description =>
  once('x', () =>
    OpenApiDescription.load(join(FIXTURES, 'x/openapi.json'), {
      source: 'X API v2 OpenAPI 2.167 (xdevplatform/xdk specs/openapi.json)',
      basePath: '',
    }),
  );

/**
 * Pinterest: the OpenAPI document of pinterest/api-description (v5, server api.pinterest.com/v5).
 * Its metric types are a oneOf of two enums that share values (IMPRESSION, SAVE, ...), which the API
 * takes from either list: read as anyOf.
 */
export const pinterestDescription = (): Description =>
  once('pinterest', () =>
    OpenApiDescription.load(join(FIXTURES, 'pinterest/openapi.json'), {
      source: 'Pinterest API v5 OpenAPI 5.23.0 (pinterest/api-description v5/openapi.json)',
      oneOfAsAnyOf: true,
    }),
  );

/** Mastodon: its API reference pages (prose), recorded field by field (mastodon/reference.json). */
export const mastodonDescription = (): Description =>
  once('mastodon', () => ReferenceDescription.load(join(FIXTURES, 'mastodon/reference.json')));

/**
 * Slack: the Web API methods' arguments as @slack/web-api's request types and the methods' reference
 * pages give them, recorded as a schema (slack/reference.json); the package has no run-time validator.
 */
export const slackDescription = (): Description =>
  once('slack', () => ReferenceDescription.load(join(FIXTURES, 'slack/reference.json')));

/**
 * Telegram: the Bot API methods the adapter calls, recorded field by field from @grammyjs/types
 * (telegram/reference.json, made by telegram/from-grammy-types.cjs); the package has types only.
 */
export const telegramDescription = (): Description =>
  once('telegram', () => ReferenceDescription.load(join(FIXTURES, 'telegram/reference.json')));

/**
 * TikTok: the Content Posting API's init calls as far as their reference pages could be read
 * (tiktok/reference.json, SOURCE.md says which tables); the fake checks the other calls itself.
 */
export const tiktokDescription = (): Description =>
  once('tiktok', () => ReferenceDescription.load(join(FIXTURES, 'tiktok/reference.json')));

/**
 * LinkedIn: the Posts API's create call as far as its Post Schema and MultiImage pages could be read
 * (linkedin/reference.json); the fake checks the other calls itself.
 */
export const linkedinDescription = (): Description =>
  once('linkedin', () => ReferenceDescription.load(join(FIXTURES, 'linkedin/reference.json')));
