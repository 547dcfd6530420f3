import { countThreadsCharacters } from './threads-text';

describe('countThreadsCharacters', () => {
  it('counts plain and accented text one per character', () => {
    expect(countThreadsCharacters('hello')).toBe(5);
    expect(countThreadsCharacters('café 日本')).toBe(7);
  });

  it('counts an emoji as its UTF-8 bytes', () => {
    expect(countThreadsCharacters('😀')).toBe(4);
    expect(countThreadsCharacters('hi 👍🏽')).toBe(3 + 4 + 4);
    // ❤️ is U+2764 (3 bytes) and a variation selector (3 bytes).
    expect(countThreadsCharacters('❤️')).toBe(6);
  });

  it('counts decomposed accents once normalized', () => {
    expect(countThreadsCharacters('cafe\u0301')).toBe(4);
  });
});
