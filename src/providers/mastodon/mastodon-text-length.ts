import { countGraphemes } from '../grapheme.util';

/** Mastodon counts every link as this many characters (`characters_reserved_per_url`). */
export const MASTODON_URL_LENGTH = 23;

const URL_RE = /https?:\/\/[^\s<>"]+/gi;
const TRAILING_PUNCTUATION_RE = /[.,:;!?'"]+$/;
/** @user or @user@domain, not preceded by a word character, "=" or "/" (Mastodon's MENTION_RE). */
const MENTION_RE =
  /(^|[^\p{L}\p{N}_=/])@([a-z0-9_]+(?:[a-z0-9_.-]+[a-z0-9_]+)?)(?:@[\p{L}\p{N}_.-]+[\p{L}\p{N}_]+)?/giu;

function trimUrl(match: string): { url: string; rest: string } {
  let url = match.replace(TRAILING_PUNCTUATION_RE, '');
  // Drop a closing parenthesis that is not balanced inside the URL ("(see https://x.y/z)").
  while (url.endsWith(')') && (url.match(/\(/g)?.length ?? 0) < (url.match(/\)/g)?.length ?? 0)) {
    url = url.slice(0, -1).replace(TRAILING_PUNCTUATION_RE, '');
  }
  return { url, rest: match.slice(url.length) };
}

/**
 * Length of a status as Mastodon counts it: grapheme clusters, every http(s) link as 23 characters,
 * and remote mentions (@user@domain) as their local part only (@user).
 */
export function countMastodonCharacters(text: string): number {
  const withLinks = text.replace(URL_RE, (match) => {
    const { rest } = trimUrl(match);
    return 'x'.repeat(MASTODON_URL_LENGTH) + rest;
  });
  const withMentions = withLinks.replace(MENTION_RE, (_m, prefix: string, user: string) => `${prefix}@${user}`);
  return countGraphemes(withMentions);
}
