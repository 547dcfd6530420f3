import { registerAs } from '@nestjs/config';
import { IsInt, Max, Min } from 'class-validator';
import { validateEnv } from './validate-env';

/** The OAuth 2.1 authorization server of remote MCP agents (src/oauth-server/, docs/adr/0043). */
export class McpOAuthEnv {
  /** How long an access token given to an agent is valid, in seconds (it then refreshes it). */
  @IsInt()
  @Min(60)
  @Max(86_400)
  MCP_OAUTH_ACCESS_TOKEN_TTL_SECONDS: number = 3600;

  /** How long a refresh token stays usable, in days; each refresh replaces it with a new one. */
  @IsInt()
  @Min(1)
  @Max(365)
  MCP_OAUTH_REFRESH_TOKEN_TTL_DAYS: number = 30;

  /** How long an authorization code may wait for its exchange, in seconds. */
  @IsInt()
  @Min(10)
  @Max(600)
  MCP_OAUTH_CODE_TTL_SECONDS: number = 120;

  /** Dynamic client registrations (POST /oauth/register) one address may make per hour. */
  @IsInt()
  @Min(1)
  @Max(10_000)
  MCP_OAUTH_REGISTRATIONS_PER_HOUR: number = 20;

  /**
   * How often expired authorization codes and tokens are deleted, in seconds. Expired ones are refused
   * anyway; used codes and refresh tokens are kept a day past their expiry, so a replay still revokes its grant.
   */
  @IsInt()
  @Min(60)
  @Max(604_800)
  MCP_OAUTH_PURGE_INTERVAL_SECONDS: number = 3600;
}

export const mcpOAuthConfig = registerAs('mcpOAuth', () => {
  const env = validateEnv(McpOAuthEnv);
  return {
    accessTokenTtlMs: env.MCP_OAUTH_ACCESS_TOKEN_TTL_SECONDS * 1000,
    refreshTokenTtlMs: env.MCP_OAUTH_REFRESH_TOKEN_TTL_DAYS * 86_400_000,
    codeTtlMs: env.MCP_OAUTH_CODE_TTL_SECONDS * 1000,
    registrationsPerHour: env.MCP_OAUTH_REGISTRATIONS_PER_HOUR,
    purgeIntervalMs: env.MCP_OAUTH_PURGE_INTERVAL_SECONDS * 1000,
  };
});
