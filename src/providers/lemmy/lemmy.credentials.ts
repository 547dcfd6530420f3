import { ApiProperty } from '@nestjs/swagger';
import { IsNotEmpty, IsString, Matches, MaxLength, ValidateIf } from 'class-validator';
import { IsHttpUrl } from '../../common/validators';
import { asObject } from '../provider-json.util';
import { parseWithSchema } from '../credentials-schema';
import { InvalidCredentialsError } from '../provider.errors';

/**
 * Lemmy: the instance and either the account's user name and password (the service logs in and logs
 * in again when the session ends) or a session token (`jwt`) taken from a signed-in browser.
 */
export class LemmyCredentialsDto {
  /** Address of the Lemmy instance the account lives on. */
  @ApiProperty({ example: 'https://lemmy.world' })
  @IsHttpUrl({ message: 'must be the http(s) address of the Lemmy instance' })
  instanceUrl!: string;

  /** User name (or email) of the account; with `password`, instead of `jwt`. */
  @ApiProperty({ example: 'release_bot', required: false })
  @ValidateIf((o: LemmyCredentialsDto) => o.jwt === undefined || o.username !== undefined)
  @IsString({ message: 'must be the account user name or email (or give jwt instead)' })
  @IsNotEmpty({ message: 'must be the account user name or email (or give jwt instead)' })
  @MaxLength(255)
  username?: string;

  /** Password of the account; with `username`. */
  @ApiProperty({ required: false, format: 'password' })
  @ValidateIf((o: LemmyCredentialsDto) => o.jwt === undefined || o.password !== undefined)
  @IsString({ message: 'must be the account password (or give jwt instead)' })
  @IsNotEmpty({ message: 'must be the account password (or give jwt instead)' })
  @MaxLength(255)
  password?: string;

  /** A session token (JWT) of the account, instead of `username` and `password`. */
  @ApiProperty({ required: false, format: 'password' })
  @ValidateIf((o: LemmyCredentialsDto) => o.jwt !== undefined || (o.username === undefined && o.password === undefined))
  @IsString({ message: 'must be a session token (JWT), or give username and password instead' })
  @Matches(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/, {
    message: 'must be a session token (JWT: three dot-separated parts), or give username and password instead',
  })
  jwt?: string;
}

export type LemmyApiVersion = 'v3' | 'v4';

export interface LemmyCredentials {
  /** Origin of the instance (no path, no trailing slash). */
  instanceUrl: string;
  username: string | null;
  password: string | null;
  /** The session token: given, or from the last login. */
  jwt: string | null;
  /** The API the instance answered at connect (`/api/v3` for 0.19, `/api/v4` for 1.x). */
  apiVersion: LemmyApiVersion;
  /** The account's person id on the instance, once connected. */
  personId: string | null;
}

/** Normalizes the instance URL to its origin. */
export function normalizeLemmyInstance(value: string): string {
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw new InvalidCredentialsError('instanceUrl is not a valid URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new InvalidCredentialsError('instanceUrl must be an http(s) URL');
  if (url.username || url.password) throw new InvalidCredentialsError('instanceUrl must not contain user information');
  return url.origin;
}

/** Validates Lemmy credentials (given or stored) against LemmyCredentialsDto; throws InvalidCredentialsError. */
export function parseLemmyCredentials(raw: unknown): LemmyCredentials {
  const given = asObject(raw);
  if (given && given.jwt !== undefined && (given.username !== undefined || given.password !== undefined)) {
    // Stored credentials of a password login hold the session token too: check the login fields alone.
    const { jwt, ...login } = given;
    const parsed = parseLemmyCredentials(login);
    return { ...parsed, jwt: typeof jwt === 'string' ? jwt : null };
  }
  const obj = parseWithSchema(LemmyCredentialsDto, raw, 'Lemmy credentials');
  const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : null);
  return {
    instanceUrl: normalizeLemmyInstance(obj.instanceUrl as string),
    username: str(obj.username)?.trim() ?? null,
    password: str(obj.password),
    jwt: str(obj.jwt),
    apiVersion: obj.apiVersion === 'v4' ? 'v4' : 'v3',
    personId: str(obj.personId),
  };
}
