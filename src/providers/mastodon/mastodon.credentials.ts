import { asObject } from '../provider-json.util';
import { InvalidCredentialsError } from '../provider.errors';

export interface MastodonCredentials {
  /** Origin of the instance, e.g. https://mastodon.social (no path, no trailing slash). */
  instanceUrl: string;
  accessToken: string;
}

/** Normalizes an instance URL to its origin; accepts a bare host name ("mastodon.social"). */
export function normalizeInstanceUrl(value: string): string {
  const text = value.trim();
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `https://${text}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    throw new InvalidCredentialsError('instanceUrl is not a valid URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new InvalidCredentialsError('instanceUrl must be an http(s) URL');
  }
  if (url.username || url.password) throw new InvalidCredentialsError('instanceUrl must not contain user information');
  return url.origin;
}

/** Validates the shape of Mastodon credentials (given to connect or stored); throws InvalidCredentialsError. */
export function parseMastodonCredentials(raw: unknown): MastodonCredentials {
  const obj = asObject(raw);
  if (!obj)
    throw new InvalidCredentialsError('Mastodon credentials must be an object with instanceUrl and accessToken');
  const { instanceUrl, accessToken } = obj;
  if (typeof instanceUrl !== 'string' || instanceUrl.trim() === '') {
    throw new InvalidCredentialsError('Mastodon credentials need instanceUrl (e.g. https://mastodon.social)');
  }
  if (typeof accessToken !== 'string' || accessToken.trim() === '') {
    throw new InvalidCredentialsError('Mastodon credentials need a non-empty accessToken');
  }
  if (/[\s\r\n]/.test(accessToken.trim())) throw new InvalidCredentialsError('The Mastodon accessToken is malformed');
  return { instanceUrl: normalizeInstanceUrl(instanceUrl), accessToken: accessToken.trim() };
}
