import { countMastodonCharacters } from './mastodon-text-length';

describe('countMastodonCharacters', () => {
  it('counts plain text as graphemes', () => {
    expect(countMastodonCharacters('hello 👋🏽')).toBe(7);
  });

  it('counts every link as 23 characters', () => {
    const long = `https://example.com/${'a'.repeat(100)}`;
    expect(countMastodonCharacters(`see ${long}`)).toBe(4 + 23);
    expect(countMastodonCharacters('x http://a.io.')).toBe(2 + 23 + 1);
    expect(countMastodonCharacters('(https://a.io/x)')).toBe(1 + 23 + 1);
  });

  it('counts remote mentions by their local part', () => {
    expect(countMastodonCharacters('hi @alice@mastodon.example')).toBe('hi @alice'.length);
    expect(countMastodonCharacters('hi @alice')).toBe('hi @alice'.length);
    expect(countMastodonCharacters('mail bob@example.com')).toBe('mail bob@example.com'.length);
  });
});
