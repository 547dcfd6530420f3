import { parseLemmyCredentials } from './lemmy.credentials';

const JWT = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOjF9.c2lnbmF0dXJl';

describe('Lemmy credentials', () => {
  it('takes a login or a token, and stored credentials holding both (a password login keeps its session)', () => {
    expect(parseLemmyCredentials({ instanceUrl: 'https://lemmy.example/path', jwt: JWT })).toEqual(
      expect.objectContaining({ instanceUrl: 'https://lemmy.example', jwt: JWT, username: null, apiVersion: 'v3' }),
    );
    const stored = parseLemmyCredentials({
      instanceUrl: 'https://lemmy.example',
      username: 'bot',
      password: 'pw',
      jwt: JWT,
      apiVersion: 'v4',
      personId: '42',
    });
    expect(stored).toEqual({
      instanceUrl: 'https://lemmy.example',
      username: 'bot',
      password: 'pw',
      jwt: JWT,
      apiVersion: 'v4',
      personId: '42',
    });
  });

  it('refuses neither a login nor a token, and a login without its password', () => {
    expect(() => parseLemmyCredentials({ instanceUrl: 'https://lemmy.example' })).toThrow(/Lemmy credentials/);
    expect(() => parseLemmyCredentials({ instanceUrl: 'https://lemmy.example', username: 'bot' })).toThrow(/password/);
  });
});
