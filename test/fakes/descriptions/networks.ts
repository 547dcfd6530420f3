import { join } from 'node:path';
import type { Description } from './description';
import { LexiconDescription } from './lexicon-description';
import { DiscoveryDescription, DiscoveryDescriptions } from './discovery-description';
import { GraphSpecDescription } from './graph-spec-description';
import { OpenApiDescription } from './openapi-description';

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
