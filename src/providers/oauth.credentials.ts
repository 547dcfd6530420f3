import { IsNotEmpty, IsOptional, IsString, MaxLength } from 'class-validator';
import { IsHttpUrl } from '../common/validators';
import { parseWithSchema } from './credentials-schema';

/**
 * What the oauth module stores for a channel of any OAuth network (never sent by users: such a
 * network connects through `POST /api/channels/connect/{provider}`): the token set of the token
 * endpoint and the API host. The refresh rewrites `accessToken`, `refreshToken` and `expiresAt`.
 * A network's credentials schema extends it with who the channel publishes as.
 */
export class OAuthCredentialsDto {
  /** The access token (Facebook: the Page's, once a Page is chosen). */
  @IsString()
  @IsNotEmpty()
  @MaxLength(4096)
  accessToken!: string;

  /** Null when the network issued none (Meta's networks renew the access token itself). */
  @IsOptional()
  @IsString()
  @MaxLength(4096)
  refreshToken?: string | null;

  /** ISO date the access token expires; null when the network did not say or it does not expire (Facebook Page tokens). */
  @IsOptional()
  @IsString()
  expiresAt?: string | null;

  /** Scopes granted, as the network listed them (space- or comma-separated). */
  @IsOptional()
  @IsString()
  @MaxLength(2048)
  scope?: string | null;

  /** The network's API host (its default or the configured override, e.g. a test server). */
  @IsHttpUrl({ message: 'must be an http(s) URL' })
  apiBaseUrl!: string;
}

/** The fields every OAuth adapter reads: the bearer token and where to send it. */
export interface OAuthCredentials {
  accessToken: string;
  /** Without a trailing slash. */
  apiBaseUrl: string;
}

/**
 * Checks stored credentials against a network's schema (OAuthCredentialsDto or a subclass),
 * non-strict; returns the token fields and the object itself for the network's own fields. Throws
 * InvalidCredentialsError naming the first problem, prefixed with `label` ("X credentials").
 */
export function parseOAuthCredentials(
  schema: new () => OAuthCredentialsDto,
  raw: unknown,
  label: string,
): OAuthCredentials & { fields: Record<string, unknown> } {
  const fields = parseWithSchema(schema, raw, label);
  return {
    accessToken: fields.accessToken as string,
    apiBaseUrl: (fields.apiBaseUrl as string).replace(/\/+$/, ''),
    fields,
  };
}

/** A network's optional string field of parsed credentials, or null. */
export function optionalField(fields: Record<string, unknown>, name: string): string | null {
  const value = fields[name];
  return typeof value === 'string' ? value : null;
}
