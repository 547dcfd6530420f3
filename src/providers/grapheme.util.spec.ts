import { countGraphemes } from './grapheme.util';

describe('countGraphemes', () => {
  it.each([
    ['', 0],
    ['hello', 5],
    ['Grüße', 5],
    ['e\u0301', 1], // e + combining acute accent
    ['🦋', 1],
    ['👨‍👩‍👧‍👦', 1], // ZWJ family
    ['👍🏽', 1], // skin tone modifier
    ['🇫🇷🇩🇪', 2], // flags
    ['日本語', 3],
  ])('counts %j as %i', (text, expected) => {
    expect(countGraphemes(text)).toBe(expected);
  });
});
