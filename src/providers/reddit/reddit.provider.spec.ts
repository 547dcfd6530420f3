import { OutboundHttp } from '../../common/http/outbound-http';
import { compileOptionsSchema, optionsProblems } from '../options-schema';
import { ContentRejectedError, CredentialsRevokedError, TransientProviderError } from '../provider.errors';
import type { MediaDescriptor } from '../social-provider.interface';
import { apiErrorsFailure, mapRedditFailure, rateLimitSeconds, redditApiErrors } from './reddit-api.client';
import { parseRedditCredentials } from './reddit.credentials';
import { REDDIT_LIMITS } from './reddit.limits';
import { REDDIT_OPTIONS_SCHEMA } from './reddit.options';
import { RedditProvider } from './reddit.provider';

const image = (overrides: Partial<MediaDescriptor> = {}): MediaDescriptor => ({
  id: 'm1',
  mimeType: 'image/png',
  size: 100,
  width: 10,
  height: 10,
  filename: 'a.png',
  ...overrides,
});

describe('Reddit options', () => {
  const validate = compileOptionsSchema('reddit', REDDIT_OPTIONS_SCHEMA);
  const problems = (options: unknown) => optionsProblems(validate, options).map((p) => p.field);

  it('requires a subreddit and a title, and names what it refuses', () => {
    expect(problems({ subreddit: 'test', title: 'Hello' })).toEqual([]);
    expect(problems({})).toEqual(expect.arrayContaining(['subreddit', 'title']));
    expect(
      problems({ subreddit: 'r/test', title: 't'.repeat(301), url: 'ftp://x', flairText: 'f'.repeat(65), nsfw: 'yes' }),
    ).toEqual(expect.arrayContaining(['subreddit', 'title', 'url', 'flairText', 'nsfw']));
  });
});

describe('RedditProvider.validate', () => {
  const http = new OutboundHttp({ allowPrivate: false });
  const provider = new RedditProvider(http);
  afterAll(() => http.close());

  it('takes 40,000 characters, up to 20 images, and refuses media on a link post', () => {
    expect(provider.validate({ content: 'x'.repeat(40_000), media: [] }, REDDIT_LIMITS)).toEqual([]);
    expect(provider.validate({ content: 'x'.repeat(40_001), media: [] }, REDDIT_LIMITS).map((p) => p.field)).toEqual([
      'content',
    ]);
    const link = provider.validate(
      { content: 'see', media: [image()], options: { subreddit: 'test', title: 't', url: 'https://example.com' } },
      REDDIT_LIMITS,
    );
    expect(link.map((p) => p.field)).toEqual(['options.url']);
    expect(
      provider
        .validate({ content: 'gallery', media: [image(), image({ id: 'm2', mimeType: 'image/gif' })] }, REDDIT_LIMITS)
        .map((p) => p.field),
    ).toEqual(['mediaIds']);
  });
});

describe('Reddit failures', () => {
  const res = (status: number, data: unknown, headers: Record<string, string> = {}) => ({ status, data, headers });

  it('maps 401 to revoked and 429 to a rate limit after X-Ratelimit-Reset', () => {
    expect(mapRedditFailure(res(401, { message: 'Unauthorized', error: 401 }), 'content')).toBeInstanceOf(
      CredentialsRevokedError,
    );
    const limited = mapRedditFailure(res(429, {}, { 'x-ratelimit-reset': '37' }), 'content');
    expect(limited).toMatchObject({ code: 'PROVIDER_RATE_LIMITED', retryAfterSeconds: 37 });
  });

  it('reads json.errors: RATELIMIT waits as it says, other codes refuse the post naming the code', () => {
    const errors = redditApiErrors({ json: { errors: [['SUBREDDIT_NOTALLOWED', "you aren't allowed", 'sr']] } });
    expect(errors).toEqual([{ code: 'SUBREDDIT_NOTALLOWED', message: "you aren't allowed", field: 'sr' }]);
    const refused = apiErrorsFailure(errors);
    expect(refused).toBeInstanceOf(ContentRejectedError);
    expect(refused.message).toContain('SUBREDDIT_NOTALLOWED');
    const limited = apiErrorsFailure([{ code: 'RATELIMIT', message: 'try again in 30 seconds.', field: null }]);
    expect(limited).toBeInstanceOf(TransientProviderError);
    expect(limited).toMatchObject({ code: 'PROVIDER_RATE_LIMITED', retryAfterSeconds: 30 });
    expect(rateLimitSeconds('try again in 2 hours')).toBe(7200);
    expect(rateLimitSeconds('later')).toBeUndefined();
  });
});

describe('Reddit credentials', () => {
  it('reads the username and refuses one Reddit would not give', () => {
    expect(
      parseRedditCredentials({ accessToken: 'a', apiBaseUrl: 'https://oauth.reddit.com/', username: 'spez' }),
    ).toEqual({ accessToken: 'a', apiBaseUrl: 'https://oauth.reddit.com', username: 'spez' });
    expect(() =>
      parseRedditCredentials({ accessToken: 'a', apiBaseUrl: 'https://oauth.reddit.com', username: '../x' }),
    ).toThrow(/username/);
  });
});
