import { countXCharacters } from './x-text-length';

describe('countXCharacters', () => {
  it('counts Latin text one per character', () => {
    expect(countXCharacters('hello world')).toBe(11);
  });

  it('counts every URL as 23 whatever its length', () => {
    expect(countXCharacters('see https://example.com/a/very/long/path?with=query&and=more')).toBe(4 + 23);
    expect(countXCharacters('https://x.co')).toBe(23);
    expect(countXCharacters('a www.example.org b')).toBe(2 + 23 + 2);
  });

  it('leaves trailing punctuation out of the URL', () => {
    expect(countXCharacters('(https://example.com).')).toBe(1 + 23 + 2);
  });

  it('counts CJK characters as 2', () => {
    expect(countXCharacters('日本語')).toBe(6);
  });

  it('counts an emoji as 2, including joined and skin-tone sequences', () => {
    expect(countXCharacters('😀')).toBe(2);
    expect(countXCharacters('👩‍👩‍👧‍👦')).toBe(2);
    expect(countXCharacters('👍🏽')).toBe(2);
  });

  it('normalizes to NFC (a decomposed é counts once)', () => {
    expect(countXCharacters('e\u0301')).toBe(1);
  });

  it('reaches 280 with 140 CJK characters', () => {
    expect(countXCharacters('字'.repeat(140))).toBe(280);
  });
});
