import type { OAuthHookContext, OAuthHosts, OAuthSpec, OAuthTokens } from '../social-provider.interface';
import { isGraphThrottle } from './graph-api.client';

/**
 * The token handling Meta's networks share (docs/adr/0022): the code gives a short-lived token (an
 * hour), swapped at once for a long-lived one (60 days). Threads and Instagram renew the long-lived
 * token itself (no refresh token) once it is a day old; we do so when 30 days are left. Facebook
 * Page tokens read with a long-lived user token do not expire.
 */

const DAY_MS = 24 * 60 * 60 * 1000;

/** Renew Threads and Instagram long-lived tokens (valid 60 days) when 30 days are left. */
export const META_REFRESH_WINDOW_MS = 30 * DAY_MS;

/** A refused token call that is in fact throttling (Graph answers limits in the body of a 400). */
export const metaTransientTokenError: NonNullable<OAuthSpec['transientTokenError']> = (status, body) =>
  isGraphThrottle(status, body);

/**
 * Threads and Instagram: `GET {url}?grant_type=<exchange>&client_secret=...&access_token=<short>`
 * answers the long-lived token. The grant's scope is kept (the exchange does not repeat it).
 */
export function exchangeForLongLived(
  url: (hosts: OAuthHosts) => string,
  grantType: string,
): NonNullable<OAuthSpec['afterCodeExchange']> {
  return async (tokens: OAuthTokens, context: OAuthHookContext) => {
    const long = await context.token({
      method: 'GET',
      url: url(context.hosts),
      fields: { grant_type: grantType, client_secret: context.clientSecret, access_token: tokens.accessToken },
    });
    return { ...long, refreshToken: null, scope: long.scope ?? tokens.scope };
  };
}

/** Threads and Instagram: `GET {url}?grant_type=<refresh>&access_token=<long-lived>` renews it for 60 days. */
export function refreshLongLived(
  url: (hosts: OAuthHosts) => string,
  grantType: string,
): NonNullable<OAuthSpec['refresh']> {
  return async (current, context) => {
    const fresh = await context.token({
      method: 'GET',
      url: url(context.hosts),
      fields: { grant_type: grantType, access_token: current.accessToken },
    });
    return { ...fresh, refreshToken: null };
  };
}

/**
 * The OAuth spec of Threads and Instagram: consent at `{auth}/oauth/authorize`, the code exchanged at
 * `{token or api}/oauth/access_token` with the client in the form, comma-separated scopes, the
 * short-lived token swapped at once for a long-lived one (`<prefix>_exchange_token`) and renewed by
 * itself (`<prefix>_refresh_token`) when 30 days are left; a throttled token call is retried.
 */
export function longLivedTokenOAuth(spec: {
  defaultHosts: OAuthHosts;
  scopes: readonly string[];
  /** Grant type prefix: `th` (Threads), `ig` (Instagram). */
  grantPrefix: string;
}): OAuthSpec {
  return {
    defaultHosts: spec.defaultHosts,
    authorizeUrl: (hosts) => `${hosts.auth}/oauth/authorize`,
    tokenUrl: (hosts) => `${hosts.token ?? hosts.api}/oauth/access_token`,
    scopes: spec.scopes,
    scopeSeparator: ',',
    clientAuthentication: 'body',
    afterCodeExchange: exchangeForLongLived(
      (hosts) => `${hosts.api}/access_token`,
      `${spec.grantPrefix}_exchange_token`,
    ),
    refresh: refreshLongLived((hosts) => `${hosts.api}/refresh_access_token`, `${spec.grantPrefix}_refresh_token`),
    refreshWindowMs: META_REFRESH_WINDOW_MS,
    transientTokenError: metaTransientTokenError,
  };
}
