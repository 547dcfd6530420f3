import { ApiProperty } from '@nestjs/swagger';
import { PROVIDER_IDS } from '../../providers/provider.list';
import type { ConnectLink } from '../connect-link.entity';

export type ConnectLinkStatus = 'active' | 'expired' | 'revoked';
export const CONNECT_LINK_STATUSES: ConnectLinkStatus[] = ['active', 'expired', 'revoked'];

/** Whether a link may still be used now. */
export function connectLinkStatus(
  link: Pick<ConnectLink, 'revokedAt' | 'expiresAt'>,
  now = Date.now(),
): ConnectLinkStatus {
  if (link.revokedAt) return 'revoked';
  return link.expiresAt.getTime() <= now ? 'expired' : 'active';
}

/** A hosted connect link. Its `url` is returned only when it is made (the service keeps a hash of it). */
export class ConnectLinkDto {
  @ApiProperty({ format: 'uuid' })
  id!: string;

  /** The networks the page offers. */
  @ApiProperty({ enum: PROVIDER_IDS, isArray: true })
  providers!: string[];

  @ApiProperty({ format: 'uri' })
  redirectUrl!: string;

  @ApiProperty({ type: String, nullable: true })
  brandName!: string | null;

  /** `active` until it expires (`expired`) or is revoked (`revoked`); only an active link connects. */
  @ApiProperty({ enum: CONNECT_LINK_STATUSES })
  status!: ConnectLinkStatus;

  @ApiProperty({ format: 'date-time' })
  expiresAt!: string;

  @ApiProperty({ format: 'date-time', type: String, nullable: true })
  revokedAt!: string | null;

  @ApiProperty({ format: 'date-time' })
  createdAt!: string;

  static from(link: ConnectLink): ConnectLinkDto {
    return {
      id: link.id,
      providers: [...link.providers],
      redirectUrl: link.redirectUrl,
      brandName: link.brandName,
      status: connectLinkStatus(link),
      expiresAt: link.expiresAt.toISOString(),
      revokedAt: link.revokedAt?.toISOString() ?? null,
      createdAt: link.createdAt.toISOString(),
    };
  }
}

/** A link just made: with its `url`, shown this once. */
export class CreatedConnectLinkDto extends ConnectLinkDto {
  /**
   * The page to hand to the person (`{PUBLIC_BASE_URL}/connect/{token}`): no sign-in, usable until
   * `expiresAt` or revocation. Only this answer carries it; treat it as a secret.
   */
  @ApiProperty({ format: 'uri', example: 'https://social.example.com/connect/cl_5Kq9...' })
  url!: string;
}
