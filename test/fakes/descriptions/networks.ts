import { join } from 'node:path';
import type { Description } from './description';
import { LexiconDescription } from './lexicon-description';
import { MessageSchemaDescription } from './message-schema-description';
import { DiscoveryDescription, DiscoveryDescriptions } from './discovery-description';
import { GraphSpecDescription } from './graph-spec-description';
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
 * Instagram (API with Instagram Login): the Graph node specs of facebook/facebook-business-sdk-codegen
 * (IGUserForIGOnlyAPI, IGMediaForIGOnlyAPI, the container ShadowIGMediaBuilder, ...). The node type
 * of each id comes from the fake, which created the object.
 */
export const instagramDescription = (nodeOf: (id: string) => string | undefined): Description =>
  GraphSpecDescription.load(join(FIXTURES, 'instagram/graph-specs'), {
    source: "Meta's Graph API specs for the Instagram API with Instagram Login (facebook-business-sdk-codegen)",
    nodeOf,
    edgeAliases: { IGUserForIGOnlyAPI: { media_publish: 'mediapublish' } },
    typeAliases: { Media: 'IGMediaForIGOnlyAPI', Comment: 'IGComment', User: 'IGUserForIGOnlyAPI' },
  });

/** Facebook Pages: the Graph node specs of facebook/facebook-business-sdk-codegen (User, Page, PagePost, ...). */
export const facebookDescription = (nodeOf: (id: string) => string | undefined): Description =>
  GraphSpecDescription.load(join(FIXTURES, 'facebook/graph-specs'), {
    source: "Meta's Graph API specs for Facebook Pages (facebook-business-sdk-codegen)",
    nodeOf,
    // "Page access tokens": /me/accounts lists each Page with the `tasks` the person may perform.
    documentedFields: { Page: ['tasks'] },
  });

/** YouTube: the Data API v3 discovery document (googleapis), trimmed to the methods the adapter calls. */
export const youtubeDescription = (): Description =>
  once('youtube', () =>
    DiscoveryDescription.load(join(FIXTURES, 'youtube/youtube.v3.json'), {
      source: 'YouTube Data API v3 discovery document (googleapis)',
    }),
  );

/**
 * Threads: Meta publishes no machine-readable description of graph.threads.net (the business SDK's
 * specs carry only a ThreadsUser stub), so its reference pages are transcribed in the same node
 * format (test/fixtures/networks/threads/SOURCE.md says which page gave what).
 */
export const threadsDescription = (nodeOf: (id: string) => string | undefined): Description =>
  GraphSpecDescription.load(join(FIXTURES, 'threads/graph-specs'), {
    source: 'the Threads API reference (developers.facebook.com/docs/threads), transcribed as Graph node specs',
    nodeOf,
  });

/**
 * Google Business Profile: the discovery documents of the account management and business
 * information APIs (googleapis), and the v4 local posts, whose discovery document Google no longer
 * publishes, transcribed from the v4 REST reference in the same format.
 */
export const googleBusinessDescription = (): Description =>
  once('google_business', () => {
    const at = (file: string, source: string) =>
      DiscoveryDescription.load(join(FIXTURES, 'google_business', file), { source });
    return new DiscoveryDescriptions([
      at('mybusinessaccountmanagement.v1.json', 'My Business Account Management API v1 discovery document'),
      at('mybusinessbusinessinformation.v1.json', 'My Business Business Information API v1 discovery document'),
      at('mybusiness.v4.localPosts.json', 'Google My Business API v4 local posts (REST reference, transcribed)'),
    ]);
  });

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
/** Reddit: the methods the adapter calls, written by hand from Reddit's API reference (no document exists). */
export const redditDescription = (): Description =>
  once('reddit', () =>
    OpenApiDescription.load(join(FIXTURES, 'reddit/openapi.json'), {
      source: 'Reddit API, methods written by hand from reddit.com/dev/api and PRAW (test/fixtures/networks/reddit)',
      basePath: '',
    }),
  );

/** Tumblr: the methods the adapter calls, written by hand from tumblr/docs (api.md, npf-spec.md). */
export const tumblrDescription = (): Description =>
  once('tumblr', () =>
    OpenApiDescription.load(join(FIXTURES, 'tumblr/openapi.json'), {
      source: 'Tumblr API v2 and NPF, written by hand from tumblr/docs 708be10 (test/fixtures/networks/tumblr)',
      basePath: '',
      jsonPart: 'json',
    }),
  );

/**
 * Lemmy: the request types of lemmy-js-client (0.19 for /api/v3, 1.0.0-beta for /api/v4) of the calls
 * the adapter makes, recorded by lemmy/from-lemmy-js-client.cjs; the package has types only.
 */
export const lemmyDescription = (): Description =>
  once('lemmy', () => ReferenceDescription.load(join(FIXTURES, 'lemmy/reference.json')));

/**
 * WordPress: the wp/v2 routes the adapter calls, their arguments as the REST controllers of
 * WordPress/wordpress-develop declare them (get_item_schema, get_collection_params), recorded in
 * wordpress/reference.json.
 */
export const wordpressDescription = (): Description =>
  once('wordpress', () => ReferenceDescription.load(join(FIXTURES, 'wordpress/reference.json')));

/**
 * Nostr: the client-to-relay messages of NIP-01 and the event object, with the NIP-10 `e` tags and
 * NIP-92 `imeta` tags of kind-1 notes, recorded as a JSON Schema (nostr/nip-01.schema.json).
 */
export const nostrDescription = (): Description =>
  once('nostr', () =>
    MessageSchemaDescription.load(
      join(FIXTURES, 'nostr/nip-01.schema.json'),
      'Nostr NIP-01 messages with NIP-10 and NIP-92 tags (nostr-protocol/nips, recorded as a JSON Schema)',
    ),
  );
