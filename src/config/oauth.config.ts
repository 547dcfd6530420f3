import { registerAs } from '@nestjs/config';
import { IsInt, IsOptional, IsString, Max, Min } from 'class-validator';
import { appConfig } from './app.config';
import { validateEnv } from './validate-env';

/**
 * What the oauth module needs for every OAuth network. Each network's own settings (client id and
 * secret, host overrides, scopes) are declared by its plugin (src/providers/, docs/adr/0031). The
 * callback base URL is PUBLIC_BASE_URL of the app configuration (app.config.ts).
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
  return {
    redirectOrigins: [...new Set([origin(publicBaseUrl), ...extraOrigins])],
    stateTtlMs: env.OAUTH_STATE_TTL_SECONDS * 1000,
    connectionTtlMs: env.OAUTH_CONNECTION_TTL_SECONDS * 1000,
    purgeIntervalMs: env.OAUTH_PURGE_INTERVAL_SECONDS * 1000,
    refreshIntervalMs: env.OAUTH_REFRESH_INTERVAL_SECONDS * 1000,
  };
});
export type OAuthConfig = ReturnType<typeof oauthConfig>;
