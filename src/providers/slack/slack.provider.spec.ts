import { OutboundHttp } from '../../common/http/outbound-http';
import { SlackProvider, escapeSlackText } from './slack.provider';
import { compileOptionsSchema, optionsProblems } from '../options-schema';
import { SLACK_LIMITS } from './slack.limits';
import { SLACK_OPTIONS_SCHEMA, slackOptionProblems } from './slack.options';

describe('Slack text', () => {
  it('escapes the characters Slack reserves, so mentions and links in a post stay text', () => {
    expect(escapeSlackText('a & b <!channel> <@U1> <https://x.test|click>')).toBe(
      'a &amp; b &lt;!channel&gt; &lt;@U1&gt; &lt;https://x.test|click&gt;',
    );
  });
});

describe('SlackProvider.validate', () => {
  const http = new OutboundHttp({ allowPrivate: false });
  const provider = new SlackProvider(http);
  afterAll(() => http.close());

  // The section block's text is limited to 3,000 characters as sent (Block Kit's text object), and
  // the text is sent escaped: each & < > is five or four characters there.
  it('counts the text as Slack receives it, escaped, against the section block limit', () => {
    expect(provider.validate({ content: 'x'.repeat(3000), media: [] }, SLACK_LIMITS)).toEqual([]);
    expect(provider.validate({ content: `${'x'.repeat(2995)}&`, media: [] }, SLACK_LIMITS)).toEqual([]);
    expect(provider.validate({ content: `${'x'.repeat(2999)}&`, media: [] }, SLACK_LIMITS)).toEqual([
      { field: 'content', message: expect.stringContaining('3004 characters') },
    ]);
  });
});

describe('Slack options', () => {
  const validate = compileOptionsSchema('slack', SLACK_OPTIONS_SCHEMA);
  const problems = (options: unknown) => optionsProblems(validate, options);

  it('takes unfurl switches and a thread reply, broadcast or not, none required', () => {
    expect(problems({})).toEqual([]);
    expect(
      problems({ unfurlLinks: false, unfurlMedia: false, threadTs: '1700000000.000100', replyBroadcast: true }),
    ).toEqual([]);
    expect(problems({ replyBroadcast: false })).toEqual([]);
  });

  it('needs threadTs for a broadcast, and a ts that looks like one', () => {
    expect(problems({ replyBroadcast: true })).toEqual([{ field: 'threadTs', message: 'is required' }]);
    expect(problems({ threadTs: '1700000000' })[0].field).toBe('threadTs');
  });

  it('refuses a broadcast of files, which Slack shares into a thread without one', () => {
    expect(slackOptionProblems({ threadTs: '1700000000.000100', replyBroadcast: true }, 1)).toEqual([
      { field: 'options.replyBroadcast', message: expect.stringContaining('without broadcasting') },
    ]);
    expect(slackOptionProblems({ threadTs: '1700000000.000100', replyBroadcast: true }, 0)).toEqual([]);
  });
});
