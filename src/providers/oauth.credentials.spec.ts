import { InvalidCredentialsError } from './provider.errors';
import { PROVIDER_PLUGINS } from './provider.list';
import { OAuthCredentialsDto, parseOAuthCredentials } from './oauth.credentials';

describe('OAuth credentials', () => {
  it('is the one schema of the token fields: every OAuth plugin extends it', () => {
    const oauth = PROVIDER_PLUGINS.filter((p) => p.connectKind === 'oauth');
    expect(oauth.length).toBeGreaterThan(0);
    for (const plugin of oauth) {
      expect([plugin.id, plugin.credentials.prototype instanceof OAuthCredentialsDto]).toEqual([plugin.id, true]);
    }
  });

  it('reads the token fields, without the trailing slash of the host, and keeps the rest for the network', () => {
    const parsed = parseOAuthCredentials(
      OAuthCredentialsDto,
      { accessToken: 'at', refreshToken: null, expiresAt: null, apiBaseUrl: 'https://api.example.com/', userId: '7' },
      'Example credentials',
    );
    expect(parsed).toEqual(
      expect.objectContaining({ accessToken: 'at', apiBaseUrl: 'https://api.example.com', fields: expect.anything() }),
    );
    expect(parsed.fields.userId).toBe('7');
  });

  it('refuses stored credentials without a token or with a host that is no URL, naming the field', () => {
    expect(() =>
      parseOAuthCredentials(OAuthCredentialsDto, { apiBaseUrl: 'https://a.example' }, 'X credentials'),
    ).toThrow(new InvalidCredentialsError('X credentials: accessToken is required'));
    expect(() =>
      parseOAuthCredentials(OAuthCredentialsDto, { accessToken: 'at', apiBaseUrl: 'nope' }, 'X credentials'),
    ).toThrow(/X credentials: apiBaseUrl must be an http\(s\) URL/);
  });
});
