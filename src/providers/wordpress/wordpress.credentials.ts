import { ApiProperty } from '@nestjs/swagger';
import { IsNotEmpty, IsString, Matches, MaxLength } from 'class-validator';
import { IsHttpUrl } from '../../common/validators';
import { parseWithSchema } from '../credentials-schema';
import { InvalidCredentialsError } from '../provider.errors';

/**
 * WordPress: a user of the site and one of their application passwords (Users > Profile >
 * Application Passwords, WordPress 5.6 and later). The user's role decides what the channel may do:
 * Author publishes posts and uploads media; creating tags that do not exist yet needs Editor.
 */
export class WordpressCredentialsDto {
  /** Address of the site (where WordPress is installed, path included, e.g. https://example.com/blog). */
  @ApiProperty({ example: 'https://blog.example.com' })
  @IsHttpUrl({ message: 'must be the http(s) address of the WordPress site' })
  siteUrl!: string;

  /** The WordPress user name (login) the application password belongs to. */
  @ApiProperty({ example: 'editor' })
  @IsString({ message: 'must be the WordPress user name (login)' })
  @IsNotEmpty({ message: 'must be the WordPress user name (login)' })
  @MaxLength(60, { message: 'must be at most 60 characters (WordPress user names are)' })
  username!: string;

  /** An application password of that user: 24 letters and digits, spaces allowed as WordPress shows them. */
  @ApiProperty({ example: 'abcd EFGH 1234 ijkl MNOP 6789', format: 'password' })
  @IsString({ message: 'must be an application password (24 letters and digits)' })
  @Matches(/^\s*(?:[A-Za-z0-9]\s*){24}$/, {
    message: 'must be an application password as WordPress shows it: 24 letters and digits (spaces allowed)',
  })
  applicationPassword!: string;
}

export interface WordpressCredentials {
  /** The site's address without a trailing slash (origin plus the install path). */
  siteUrl: string;
  username: string;
  /** The application password without spaces (WordPress ignores them). */
  applicationPassword: string;
}

/** The site's address normalized: http(s), no user information, query or fragment, no trailing slash. */
export function normalizeSiteUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw new InvalidCredentialsError('siteUrl is not a valid URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new InvalidCredentialsError('siteUrl must be an http(s) URL');
  }
  if (url.username || url.password) throw new InvalidCredentialsError('siteUrl must not contain user information');
  const path = url.pathname.replace(/\/+$/, '').replace(/\/wp-json$/, '');
  return `${url.origin}${path}`;
}

/** Validates WordPress credentials (given or stored) against WordpressCredentialsDto; throws InvalidCredentialsError. */
export function parseWordpressCredentials(raw: unknown): WordpressCredentials {
  const obj = parseWithSchema(WordpressCredentialsDto, raw, 'WordPress credentials');
  return {
    siteUrl: normalizeSiteUrl(obj.siteUrl as string),
    username: (obj.username as string).trim(),
    applicationPassword: (obj.applicationPassword as string).replace(/\s+/g, ''),
  };
}
