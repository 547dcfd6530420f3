import { join } from 'node:path';
import type { Description } from './description';
import { LexiconDescription } from './lexicon-description';

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
