import { captionLength, captionProblems, captionTags } from './instagram-caption';

describe('Instagram captions', () => {
  it('counts characters as code points', () => {
    expect(captionLength('café 😀')).toBe(6);
  });

  it('counts hashtags and mentions, not e-mail addresses or URL fragments', () => {
    expect(captionTags('#one #two and #three_3 @alice @bob.smith')).toEqual({ hashtags: 3, mentions: 2 });
    expect(captionTags('mail me@example.com, see https://x.test/#anchor, C# &#38;')).toEqual({
      hashtags: 0,
      mentions: 0,
    });
  });

  it('refuses more than 30 hashtags and more than 20 mentions', () => {
    const tags = (n: number, p: string) => Array.from({ length: n }, (_, i) => `${p}t${i}`).join(' ');
    expect(captionProblems(tags(30, '#'))).toEqual([]);
    expect(captionProblems(tags(31, '#'))).toEqual(['The caption has 31 hashtags; Instagram allows 30']);
    expect(captionProblems(tags(21, '@'))).toEqual(['The caption mentions 21 accounts; Instagram allows 20']);
  });
});
