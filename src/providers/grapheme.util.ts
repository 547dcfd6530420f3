const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/** Number of user-perceived characters (extended grapheme clusters), e.g. one per emoji with modifiers. */
export function countGraphemes(text: string): number {
  let count = 0;
  for (const segment of segmenter.segment(text)) {
    if (segment.segment.length > 0) count += 1;
  }
  return count;
}
