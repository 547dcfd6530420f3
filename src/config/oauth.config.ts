import { registerAs } from '@nestjs/config';
import { IsInt, IsOptional, IsString, IsUrl, Matches, Max, Min } from 'class-validator';
import { appConfig } from './app.config';
import { validateEnv } from './validate-env';

const URL_OPTIONS = { require_tld: false, require_protocol: true, protocols: ['http', 'https'] };

/**
 * App credentials of the OAuth networks and host overrides (tests, proxies). The callback base URL
 * is PUBLIC_BASE_URL of the app configuration (app.config.ts).
 */
export class OAuthEnv {
  /** Comma-separated origins a connect request's `redirectUri` may point to (PUBLIC_BASE_URL's origin is always allowed). */
  @IsOptional()
  @IsString()
  OAUTH_REDIRECT_ORIGINS?: string = undefined;

  /** How long an authorization (state) stays valid, in seconds. */
  @IsInt()
  @Min(60)
  @Max(3600)
  OAUTH_STATE_TTL_SECONDS: number = 600;

  /** How long an authorization reaching several accounts waits for the choice of targets, in seconds. */
  @IsInt()
  @Min(60)
  @Max(86_400)
  OAUTH_CONNECTION_TTL_SECONDS: number = 900;

  /** How often a worker deletes expired authorizations (states and pending connections), in seconds. */
  @IsInt()
  @Min(10)
  OAUTH_PURGE_INTERVAL_SECONDS: number = 3600;

  /**
   * How often a worker renews the long-lived tokens of channels that were not used while their
   * renewal window was open (Threads, Instagram), in seconds (periodic job oauth.refresh).
   */
  @IsInt()
  @Min(60)
  OAUTH_REFRESH_INTERVAL_SECONDS: number = 21_600;

  @IsOptional() @IsString() X_CLIENT_ID?: string = undefined;
  @IsOptional() @IsString() X_CLIENT_SECRET?: string = undefined;
  /** Host of X's consent page (default https://x.com). */
  @IsOptional() @IsUrl(URL_OPTIONS) X_AUTH_BASE_URL?: string = undefined;
  /** Host of X's API and token endpoint (default https://api.x.com). */
  @IsOptional() @IsUrl(URL_OPTIONS) X_API_BASE_URL?: string = undefined;

  @IsOptional() @IsString() LINKEDIN_CLIENT_ID?: string = undefined;
  @IsOptional() @IsString() LINKEDIN_CLIENT_SECRET?: string = undefined;
  /** Host of LinkedIn's consent page and token endpoint (default https://www.linkedin.com). */
  @IsOptional() @IsUrl(URL_OPTIONS) LINKEDIN_AUTH_BASE_URL?: string = undefined;
  /** Host of LinkedIn's REST API (default https://api.linkedin.com). */
  @IsOptional() @IsUrl(URL_OPTIONS) LINKEDIN_API_BASE_URL?: string = undefined;
  /** Scopes asked of LinkedIn members, space-separated (default: member and organization posting and analytics). */
  @IsOptional()
  @Matches(/^[A-Za-z0-9_]+( [A-Za-z0-9_]+)*$/, { message: 'must be scope names separated by single spaces' })
  LINKEDIN_SCOPES?: string = undefined;
  @IsOptional() @IsString() THREADS_CLIENT_ID?: string = undefined;
  @IsOptional() @IsString() THREADS_CLIENT_SECRET?: string = undefined;
  /** Host of the Threads authorization window (default https://threads.com). */
  @IsOptional() @IsUrl(URL_OPTIONS) THREADS_AUTH_BASE_URL?: string = undefined;
  /** Host of the Threads API and its token endpoints (default https://graph.threads.net). */
  @IsOptional() @IsUrl(URL_OPTIONS) THREADS_API_BASE_URL?: string = undefined;

  @IsOptional() @IsString() INSTAGRAM_CLIENT_ID?: string = undefined;
  @IsOptional() @IsString() INSTAGRAM_CLIENT_SECRET?: string = undefined;
  /** Host of Instagram's authorization window (default https://www.instagram.com). */
  @IsOptional() @IsUrl(URL_OPTIONS) INSTAGRAM_AUTH_BASE_URL?: string = undefined;
  /** Host of Instagram's code exchange (default https://api.instagram.com). */
  @IsOptional() @IsUrl(URL_OPTIONS) INSTAGRAM_TOKEN_BASE_URL?: string = undefined;
  /** Host of the Instagram API, long-lived token exchange and refresh (default https://graph.instagram.com). */
  @IsOptional() @IsUrl(URL_OPTIONS) INSTAGRAM_API_BASE_URL?: string = undefined;

  @IsOptional() @IsString() FACEBOOK_CLIENT_ID?: string = undefined;
  @IsOptional() @IsString() FACEBOOK_CLIENT_SECRET?: string = undefined;
  /** Host of Facebook's login dialog (default https://www.facebook.com). */
  @IsOptional() @IsUrl(URL_OPTIONS) FACEBOOK_AUTH_BASE_URL?: string = undefined;
  /** Host of the Graph API and its token endpoint (default https://graph.facebook.com). */
  @IsOptional() @IsUrl(URL_OPTIONS) FACEBOOK_API_BASE_URL?: string = undefined;

  /** LinkedIn-Version header of REST calls (YYYYMM); LinkedIn retires each version after about a year. */
  @Matches(/^\d{6}$/, { message: 'must be a version in YYYYMM format' })
  LINKEDIN_API_VERSION: string = '202610';
}

/** One network's app registration; a provider without client id and secret is disabled. */
export interface OAuthClientConfig {
  clientId: string | null;
  clientSecret: string | null;
  /** Overrides of the plugin's default hosts (null: the plugin's default). */
  authBaseUrl: string | null;
  apiBaseUrl: string | null;
  /** Override of the plugin's token endpoint host, for networks with a third host (null: the plugin's). */
  tokenBaseUrl: string | null;
  /** Override of the plugin's scopes (null: the plugin's). */
  scopes: string[] | null;
}

const origin = (url: string) => new URL(url).origin;

export const oauthConfig = registerAs('oauth', () => {
  const env = validateEnv(OAuthEnv);
  const { publicBaseUrl } = appConfig();
  const extraOrigins = (env.OAUTH_REDIRECT_ORIGINS ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((s) => {
      try {
        return origin(s);
      } catch {
        throw new Error(`Invalid configuration: OAUTH_REDIRECT_ORIGINS has an invalid URL: ${s}`);
      }
    });
  const trim = (url?: string) => (url ? url.replace(/\/+$/, '') : null);
  const client = (
    id?: string,
    secret?: string,
    auth?: string,
    api?: string,
    scopes?: string,
    token?: string,
  ): OAuthClientConfig => ({
    clientId: id ?? null,
    clientSecret: secret ?? null,
    authBaseUrl: trim(auth),
    apiBaseUrl: trim(api),
    tokenBaseUrl: trim(token),
    scopes: scopes ? scopes.split(' ') : null,
  });
  const clients: Record<string, OAuthClientConfig> = {
    x: client(env.X_CLIENT_ID, env.X_CLIENT_SECRET, env.X_AUTH_BASE_URL, env.X_API_BASE_URL),
    linkedin: client(
      env.LINKEDIN_CLIENT_ID,
      env.LINKEDIN_CLIENT_SECRET,
      env.LINKEDIN_AUTH_BASE_URL,
      env.LINKEDIN_API_BASE_URL,
      env.LINKEDIN_SCOPES,
    ),
    threads: client(
      env.THREADS_CLIENT_ID,
      env.THREADS_CLIENT_SECRET,
      env.THREADS_AUTH_BASE_URL,
      env.THREADS_API_BASE_URL,
    ),
    instagram: client(
      env.INSTAGRAM_CLIENT_ID,
      env.INSTAGRAM_CLIENT_SECRET,
      env.INSTAGRAM_AUTH_BASE_URL,
      env.INSTAGRAM_API_BASE_URL,
      undefined,
      env.INSTAGRAM_TOKEN_BASE_URL,
    ),
    facebook: client(
      env.FACEBOOK_CLIENT_ID,
      env.FACEBOOK_CLIENT_SECRET,
      env.FACEBOOK_AUTH_BASE_URL,
      env.FACEBOOK_API_BASE_URL,
    ),
  };
  return {
    redirectOrigins: [...new Set([origin(publicBaseUrl), ...extraOrigins])],
    stateTtlMs: env.OAUTH_STATE_TTL_SECONDS * 1000,
    connectionTtlMs: env.OAUTH_CONNECTION_TTL_SECONDS * 1000,
    purgeIntervalMs: env.OAUTH_PURGE_INTERVAL_SECONDS * 1000,
    refreshIntervalMs: env.OAUTH_REFRESH_INTERVAL_SECONDS * 1000,
    linkedinApiVersion: env.LINKEDIN_API_VERSION,
    clients,
  };
});
export type OAuthConfig = ReturnType<typeof oauthConfig>;
