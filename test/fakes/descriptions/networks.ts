import { join } from 'node:path';
import type { Description } from './description';
import { LexiconDescription } from './lexicon-description';
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
