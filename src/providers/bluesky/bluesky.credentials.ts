import { ApiProperty } from '@nestjs/swagger';
import { IsNotEmpty, IsOptional, IsString, MaxLength } from 'class-validator';
import { IsHttpUrl } from '../../common/validators';
import { parseWithSchema } from '../credentials-schema';
import { asNonEmptyString, asObject } from '../provider-json.util';
import { InvalidCredentialsError } from '../provider.errors';

/** Bluesky: the account's handle or DID and an app password. */
export class BlueskyCredentialsDto {
  @ApiProperty({ example: 'alice.bsky.social' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(255)
  identifier!: string;

  @IsString()
  @IsNotEmpty()
  @MaxLength(255)
  appPassword!: string;

  /** PDS base URL; default https://bsky.social. */
  @ApiProperty({ required: false, example: 'https://bsky.social' })
  @IsOptional()
  @IsHttpUrl({ message: 'must be an http(s) URL' })
  serviceUrl?: string;
}

export const BLUESKY_DEFAULT_SERVICE_URL = 'https://bsky.social';

/** What the user gives to connect: a handle/email/DID and an app password. */
export interface BlueskyLogin {
  identifier: string;
  appPassword: string;
  /** Origin of the PDS or entryway. Default https://bsky.social. */
  serviceUrl: string;
}

/** What is stored after connect; the session tokens are refreshed as needed. */
export interface BlueskyStoredCredentials extends BlueskyLogin {
  did: string;
  handle: string;
  accessJwt: string;
  refreshJwt: string;
}

function normalizeServiceUrl(value: unknown): string {
  if (value === undefined || value === null || value === '') return BLUESKY_DEFAULT_SERVICE_URL;
  let url: URL;
  try {
    url = new URL(typeof value === 'string' ? value.trim() : '');
  } catch {
    throw new InvalidCredentialsError('serviceUrl is not a valid URL');
  }
  if (url.username || url.password) throw new InvalidCredentialsError('serviceUrl must not contain user information');
  return url.origin;
}

/**
 * Validates the credentials given to connect against BlueskyCredentialsDto, the schema the API also
 * validates with, and normalizes them; throws InvalidCredentialsError.
 */
export function parseBlueskyLogin(raw: unknown): BlueskyLogin {
  const obj = parseWithSchema(BlueskyCredentialsDto, raw, 'Bluesky credentials');
  const identifier = (obj.identifier as string).trim().replace(/^@/, '');
  if (identifier === '')
    throw new InvalidCredentialsError('Bluesky credentials need an identifier (handle, email or DID)');
  const appPassword = (obj.appPassword as string).trim();
  if (appPassword === '') throw new InvalidCredentialsError('Bluesky credentials need a non-empty appPassword');
  return { identifier, appPassword, serviceUrl: normalizeServiceUrl(obj.serviceUrl) };
}

/** Validates stored credentials; session tokens may be missing (a new session is then created). */
export function parseBlueskyStoredCredentials(raw: unknown): BlueskyStoredCredentials {
  const login = parseBlueskyLogin(raw);
  const obj = asObject(raw) ?? {};
  const did = asNonEmptyString(obj.did);
  if (!did || !did.startsWith('did:')) throw new InvalidCredentialsError('Stored Bluesky credentials have no DID');
  return {
    ...login,
    did,
    handle: asNonEmptyString(obj.handle) ?? login.identifier,
    accessJwt: asNonEmptyString(obj.accessJwt) ?? '',
    refreshJwt: asNonEmptyString(obj.refreshJwt) ?? '',
  };
}

/** Plain object form for storage / PublishResult.credentials. */
export function toStoredRecord(creds: BlueskyStoredCredentials): Record<string, unknown> {
  return {
    identifier: creds.identifier,
    appPassword: creds.appPassword,
    serviceUrl: creds.serviceUrl,
    did: creds.did,
    handle: creds.handle,
    accessJwt: creds.accessJwt,
    refreshJwt: creds.refreshJwt,
  };
}
