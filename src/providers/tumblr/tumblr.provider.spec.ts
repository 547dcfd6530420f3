import { OutboundHttp } from '../../common/http/outbound-http';
import { compileOptionsSchema, optionsProblems } from '../options-schema';
import { ContentRejectedError, CredentialsRevokedError } from '../provider.errors';
import { TUMBLR_LIMITS } from './tumblr.limits';
import { TUMBLR_OPTIONS_SCHEMA } from './tumblr.options';
import { TumblrProvider, mapTumblrFailure, textBlocks, tumblrErrorText } from './tumblr.provider';

describe('Tumblr NPF text', () => {
  it('makes one text block per non-empty line', () => {
    expect(textBlocks('One\n\nTwo\r\nThree\n')).toEqual([
      { type: 'text', text: 'One' },
      { type: 'text', text: 'Two' },
      { type: 'text', text: 'Three' },
    ]);
    expect(textBlocks('')).toEqual([]);
  });

  it('refuses a paragraph over 4,096 code points, counting an emoji as one', () => {
    const http = new OutboundHttp({ allowPrivate: false });
    try {
      const provider = new TumblrProvider(http);
      expect(provider.validate({ content: '😻'.repeat(4096), media: [] }, TUMBLR_LIMITS)).toEqual([]);
      expect(provider.validate({ content: 'x'.repeat(4097), media: [] }, TUMBLR_LIMITS)).toEqual([
        { field: 'content', message: expect.stringContaining('4096') },
      ]);
    } finally {
      void http.close();
    }
  });
});

describe('Tumblr options and failures', () => {
  const validate = compileOptionsSchema('tumblr', TUMBLR_OPTIONS_SCHEMA);
  it('takes tags, a state and a source URL, none required', () => {
    expect(optionsProblems(validate, {})).toEqual([]);
    expect(optionsProblems(validate, { tags: ['a'], state: 'draft', sourceUrl: 'https://example.com' })).toEqual([]);
    expect(optionsProblems(validate, { state: 'private', tags: ['#a'] }).map((p) => p.field)).toEqual(
      expect.arrayContaining(['state', 'tags[0]']),
    );
  });

  it("reads Tumblr's {meta, errors} bodies and maps 401 and 403", () => {
    const body = { meta: { status: 403, msg: 'Forbidden' }, errors: [{ title: 'Daily limit', code: 8023 }] };
    expect(tumblrErrorText(body)).toBe('Daily limit (8023)');
    expect(tumblrErrorText({ meta: { status: 404, msg: 'Not Found' } })).toBe('Not Found');
    expect(mapTumblrFailure({ status: 401, headers: {}, data: {} }, 'content')).toBeInstanceOf(CredentialsRevokedError);
    expect(mapTumblrFailure({ status: 403, headers: {}, data: body }, 'content')).toBeInstanceOf(ContentRejectedError);
  });
});
