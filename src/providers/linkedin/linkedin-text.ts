/**
 * LinkedIn's Posts API reads `commentary` as "little" text: `\ | { } @ [ ] ( ) < > # * _ ~` are
 * markup, and an unescaped one that does not form an element makes LinkedIn cut the text there. We
 * escape every reserved character with a backslash, except inside URLs (so they still link) and a
 * `#` opening a hashtag (so it stays one).
 */
const RESERVED = /[\\|{}@[\]()<>#*_~]/g;
const URL_OR_HASHTAG = /https?:\/\/[^\s]+|#(?=[\p{L}\p{N}_])/gu;

export function escapeLittleText(text: string): string {
  let out = '';
  let last = 0;
  for (const match of text.matchAll(URL_OR_HASHTAG)) {
    const index = match.index ?? 0;
    out += text.slice(last, index).replace(RESERVED, (c) => `\\${c}`) + match[0];
    last = index + match[0].length;
  }
  return out + text.slice(last).replace(RESERVED, (c) => `\\${c}`);
}

/** The plain text of little text as LinkedIn returns it: escapes removed. */
export function unescapeLittleText(little: string): string {
  return little.replace(/\\([\\|{}@[\]()<>#*_~])/g, '$1');
}

/**
 * Length of the commentary as sent (escapes included), in UTF-16 code units: LinkedIn does not
 * say how it counts its 3,000 characters, so we count what it receives, the stricter reading.
 */
export function linkedInCommentaryLength(text: string): number {
  return escapeLittleText(text.normalize('NFC')).length;
}

/** Text for comparing a post found on LinkedIn with ours: plain, NFC, spacing collapsed. */
export function comparableText(text: string): string {
  return text.normalize('NFC').replace(/\s+/g, ' ').trim();
}
