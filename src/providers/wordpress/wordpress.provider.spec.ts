import { normalizeSiteUrl, parseWordpressCredentials } from './wordpress.credentials';

describe('WordPress credentials', () => {
  it('keeps the install path, drops a trailing slash or /wp-json, and the spaces of the application password', () => {
    expect(normalizeSiteUrl('https://example.com/blog/')).toBe('https://example.com/blog');
    expect(normalizeSiteUrl('https://example.com/wp-json/')).toBe('https://example.com');
    expect(
      parseWordpressCredentials({
        siteUrl: 'https://example.com',
        username: ' editor ',
        applicationPassword: 'abcd EFGH 1234 ijkl MNOP 5678',
      }),
    ).toEqual({ siteUrl: 'https://example.com', username: 'editor', applicationPassword: 'abcdEFGH1234ijklMNOP5678' });
  });

  it('refuses a password that is not an application password, naming the field', () => {
    expect(() =>
      parseWordpressCredentials({ siteUrl: 'https://example.com', username: 'editor', applicationPassword: 'hunter2' }),
    ).toThrow(/applicationPassword must be an application password/);
  });
});
