import { ApiProperty } from '@nestjs/swagger';
import { IsNotEmpty, IsString, MaxLength } from 'class-validator';
import { IsHttpUrl } from '../../common/validators';
import { parseWithSchema } from '../credentials-schema';
import { InvalidCredentialsError } from '../provider.errors';

/** Mastodon: an access token of the account (scopes `read write`). */
export class MastodonCredentialsDto {
  /** Base URL of the instance. */
  @ApiProperty({ example: 'https://mastodon.social' })
  @IsHttpUrl({ message: 'must be an http(s) URL' })
  instanceUrl!: string;

  @IsString()
  @IsNotEmpty()
  @MaxLength(4096)
  accessToken!: string;
}

export interface MastodonCredentials {
  /** Origin of the instance, e.g. https://mastodon.social (no path, no trailing slash). */
  instanceUrl: string;
  accessToken: string;
}

/** Normalizes an http(s) instance URL to its origin. */
export function normalizeInstanceUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw new InvalidCredentialsError('instanceUrl is not a valid URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new InvalidCredentialsError('instanceUrl must be an http(s) URL');
  }
  if (url.username || url.password) throw new InvalidCredentialsError('instanceUrl must not contain user information');
  return url.origin;
}

/**
 * Validates Mastodon credentials (given to connect or stored) against MastodonCredentialsDto, the
 * schema the API also validates with, and normalizes them; throws InvalidCredentialsError.
 */
export function parseMastodonCredentials(raw: unknown): MastodonCredentials {
  const obj = parseWithSchema(MastodonCredentialsDto, raw, 'Mastodon credentials');
  const instanceUrl = obj.instanceUrl as string;
  const accessToken = (obj.accessToken as string).trim();
  if (accessToken === '' || /\s/.test(accessToken)) {
    throw new InvalidCredentialsError('The Mastodon accessToken is malformed');
  }
  return { instanceUrl: normalizeInstanceUrl(instanceUrl), accessToken };
}
