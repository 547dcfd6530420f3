import { ApiProperty } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayNotEmpty, IsArray, IsString, Matches } from 'class-validator';
import { getPublicKey, nip19 } from 'nostr-tools';
import { parseWithSchema } from '../credentials-schema';
import { InvalidCredentialsError } from '../provider.errors';

/** Most relays a channel publishes to. */
export const NOSTR_MAX_RELAYS = 20;

/**
 * Nostr: the account's private key, which signs every note (it never leaves the service), and the
 * relays notes are published to.
 */
export class NostrCredentialsDto {
  /** The private key: `nsec1...` (NIP-19) or 64 hexadecimal characters. */
  @ApiProperty({ example: 'nsec1vl029mgpspedva04g90vltkh6fvh240zqtv9k0t9af8935ke9laqsnlfe5', format: 'password' })
  @IsString({ message: 'must be a private key: nsec1... or 64 hexadecimal characters' })
  @Matches(/^\s*(nsec1[02-9ac-hj-np-z]{58}|[0-9a-fA-F]{64})\s*$/, {
    message: 'must be a private key: nsec1... (NIP-19) or 64 hexadecimal characters',
  })
  privateKey!: string;

  /**
   * Relays to publish to: `wss://` URLs (`ws://` only where the service may reach private addresses,
   * in development and tests).
   */
  @ApiProperty({ example: ['wss://relay.damus.io', 'wss://nos.lol'] })
  @IsArray({ message: 'must be a non-empty list of relay URLs (wss://...)' })
  @ArrayNotEmpty({ message: 'must list at least one relay (wss://...)' })
  @ArrayMaxSize(NOSTR_MAX_RELAYS, { message: `must list at most ${NOSTR_MAX_RELAYS} relays` })
  @IsString({ each: true, message: 'must be relay URLs (wss://...)' })
  @Matches(/^wss?:\/\/[^\s/?#]+(\/[^\s?#]*)?$/i, { each: true, message: 'must be relay URLs (wss://host[/path])' })
  relays!: string[];
}

export interface NostrCredentials {
  /** The private key, 64 lower-case hexadecimal characters. */
  privateKey: string;
  /** The public key (x-only, hex): the account's id on Nostr. */
  publicKey: string;
  relays: string[];
}

/** A relay URL normalized (scheme and host lower case, no trailing slash); ws:// only when `allowInsecure`. */
export function normalizeRelayUrl(value: string, allowInsecure: boolean): string {
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw new InvalidCredentialsError(`The relay ${value} is not a valid URL`);
  }
  if (url.protocol !== 'wss:' && !(url.protocol === 'ws:' && allowInsecure)) {
    throw new InvalidCredentialsError(`The relay ${value} must be a wss:// URL`);
  }
  if (url.username || url.password || url.search || url.hash) {
    throw new InvalidCredentialsError(`The relay ${value} must be wss://host[/path], without credentials or query`);
  }
  return `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, '')}`;
}

/**
 * Validates Nostr credentials (given or stored) against NostrCredentialsDto and derives the public key;
 * throws InvalidCredentialsError. `allowInsecure` admits ws:// relays (the outbound client allows
 * private addresses: development and tests).
 */
export function parseNostrCredentials(raw: unknown, allowInsecure: boolean): NostrCredentials {
  const obj = parseWithSchema(NostrCredentialsDto, raw, 'Nostr credentials');
  const given = (obj.privateKey as string).trim();
  let secret: Uint8Array;
  if (given.startsWith('nsec1')) {
    try {
      const decoded = nip19.decode(given);
      if (decoded.type !== 'nsec') throw new Error('not an nsec');
      secret = decoded.data;
    } catch {
      throw new InvalidCredentialsError('The Nostr privateKey is not a valid nsec (its checksum does not match)');
    }
  } else secret = Uint8Array.from(Buffer.from(given, 'hex'));
  let publicKey: string;
  try {
    publicKey = getPublicKey(secret);
  } catch {
    throw new InvalidCredentialsError('The Nostr privateKey is not a valid secp256k1 private key');
  }
  const relays = [...new Set((obj.relays as string[]).map((r) => normalizeRelayUrl(r, allowInsecure)))];
  return { privateKey: Buffer.from(secret).toString('hex'), publicKey, relays };
}
