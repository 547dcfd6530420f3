import { escapeSlackText } from './slack.provider';

describe('Slack text', () => {
  it('escapes the characters Slack reserves, so mentions and links in a post stay text', () => {
    expect(escapeSlackText('a & b <!channel> <@U1> <https://x.test|click>')).toBe(
      'a &amp; b &lt;!channel&gt; &lt;@U1&gt; &lt;https://x.test|click&gt;',
    );
  });
});
