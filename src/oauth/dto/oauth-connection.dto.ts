import { ApiProperty } from '@nestjs/swagger';
import { ChannelDto } from '../../channels/dto/channel.dto';
import type { PendingConnection } from '../oauth.service';

/** One account an authorization reaches: the member, or a page they administer. */
export class OAuthTargetDto {
  /** The account's id on the network, sent back in `targetIds` (LinkedIn: a member or organization URN). */
  @ApiProperty({ example: 'urn:li:organization:2414183' })
  id!: string;

  /** `personal`: the account of the person who authorized; `organization`: a page they administer. */
  @ApiProperty({ enum: ['personal', 'organization'] })
  kind!: 'personal' | 'organization';

  name!: string;

  handle!: string;

  @ApiProperty({ nullable: true, type: String, format: 'uri' })
  avatarUrl!: string | null;

  @ApiProperty({ nullable: true, type: String, format: 'uri' })
  profileUrl!: string | null;

  /** The workspace's existing channel of this account (choosing it reactivates that channel), else null. */
  @ApiProperty({ nullable: true, type: String, format: 'uuid' })
  channelId!: string | null;
}

/** A finished authorization that reaches several accounts, waiting for the choice of targets. */
export class OAuthConnectionDto {
  @ApiProperty({ format: 'uuid' })
  id!: string;

  /** The network, as in `GET /api/providers`. */
  provider!: string;

  /** Every account the authorization may publish as, the authorizing one first. */
  targets!: OAuthTargetDto[];

  /** After this, the connection is refused (409) and a new authorization is needed. */
  @ApiProperty({ format: 'date-time' })
  expiresAt!: string;

  static from(c: PendingConnection): OAuthConnectionDto {
    return {
      id: c.id,
      provider: c.provider,
      targets: c.targets.map((t) => ({ ...t })),
      expiresAt: c.expiresAt.toISOString(),
    };
  }
}

/** The channels created or reactivated for the chosen targets, in the order of `targetIds`. */
export class OAuthChannelsDto {
  data!: ChannelDto[];
}
