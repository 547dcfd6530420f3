import * as classValidator from 'class-validator';
import { parseMastodonCredentials } from './mastodon/mastodon.credentials';
import { InvalidCredentialsError } from './provider.errors';

function deepFreeze<T extends object>(value: T): T {
  for (const v of Object.values(value)) if (v && typeof v === 'object') deepFreeze(v as object);
  return Object.freeze(value);
}

describe('parseWithSchema (adapters parsing stored credentials)', () => {
  const valid = { instanceUrl: 'https://mastodon.example', accessToken: 'token', extra: { kept: true } };
  let validate: jest.SpyInstance;

  beforeEach(() => {
    validate = jest.spyOn(classValidator, 'validateSync');
  });
  afterEach(() => validate.mockRestore());

  it('checks deeply frozen credentials (as the channels module hands them out) once', () => {
    const frozen = deepFreeze(structuredClone(valid));
    expect(parseMastodonCredentials(frozen)).toEqual({ instanceUrl: 'https://mastodon.example', accessToken: 'token' });
    expect(parseMastodonCredentials(frozen)).toEqual({ instanceUrl: 'https://mastodon.example', accessToken: 'token' });
    expect(validate).toHaveBeenCalledTimes(1);
  });

  it('checks mutable credentials, and frozen ones with a mutable part, at every call', () => {
    const mutable = structuredClone(valid);
    parseMastodonCredentials(mutable);
    mutable.instanceUrl = 'not a url';
    expect(() => parseMastodonCredentials(mutable)).toThrow(InvalidCredentialsError);
    const shallow = Object.freeze(structuredClone(valid));
    parseMastodonCredentials(shallow);
    parseMastodonCredentials(shallow);
    expect(validate).toHaveBeenCalledTimes(4);
  });

  it('refuses invalid frozen credentials every time', () => {
    const bad = deepFreeze({ instanceUrl: 'ftp://x', accessToken: 'token' });
    expect(() => parseMastodonCredentials(bad)).toThrow(InvalidCredentialsError);
    expect(() => parseMastodonCredentials(bad)).toThrow(InvalidCredentialsError);
    expect(validate).toHaveBeenCalledTimes(2);
  });
});
