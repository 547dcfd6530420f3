/**
 * X's weighted length (twitter-text v3 configuration): code points in the ranges below weigh 1,
 * every other code point 2 (CJK, most emoji); an emoji grapheme (with its modifiers and joiners)
 * weighs 2 in all; every URL weighs 23 however long it is. Text is NFC-normalized first.
 */
const LIGHT_RANGES: Array<[number, number]> = [
  [0, 4351],
  [8192, 8205],
  [8208, 8223],
  [8242, 8247],
];

export const X_URL_LENGTH = 23;

/** http(s) URLs and www. hosts; twitter-text also links bare domains with a known TLD (see ADR). */
const URL_PATTERN = /\b(?:https?:\/\/|www\.)[^\s<>"]+/giu;
const EMOJI = /\p{Extended_Pictographic}|\p{Regional_Indicator}/u;

const segmenter = new Intl.Segmenter('en', { granularity: 'grapheme' });

function weightOf(segment: string): number {
  if (EMOJI.test(segment)) return 2;
  let weight = 0;
  for (const ch of segment) {
    const cp = ch.codePointAt(0) ?? 0;
    weight += LIGHT_RANGES.some(([lo, hi]) => cp >= lo && cp <= hi) ? 1 : 2;
  }
  return weight;
}

/** Whether the text carries a URL as X links them (what X's pay-per-use pricing charges more for). */
export function hasXUrl(text: string): boolean {
  return new RegExp(URL_PATTERN.source, URL_PATTERN.flags).test(text.normalize('NFC'));
}

export function countXCharacters(text: string): number {
  const normalized = text.normalize('NFC');
  let length = 0;
  let last = 0;
  for (const match of normalized.matchAll(URL_PATTERN)) {
    const url = match[0].replace(/[.,;:!?)\]}'"]+$/u, '');
    for (const { segment } of segmenter.segment(normalized.slice(last, match.index))) length += weightOf(segment);
    length += X_URL_LENGTH;
    last = (match.index ?? 0) + url.length;
  }
  for (const { segment } of segmenter.segment(normalized.slice(last))) length += weightOf(segment);
  return length;
}
