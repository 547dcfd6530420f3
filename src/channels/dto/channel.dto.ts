import { ApiProperty } from '@nestjs/swagger';
import { VideoLimitsDto } from '../../providers/dto/video-limits.dto';
import { PROVIDER_IDS, ProviderId } from '../../providers/provider.list';
import { Channel, ChannelStatus, DisconnectReason } from '../channel.entity';

export class ChannelLimitsDto {
  /** Longest post the account may publish (Mastodon: characters; Bluesky: graphemes). */
  maxCharacters!: number;
  /** Most media attachments per post. */
  maxMedia!: number;
  /** Whether posts to this channel may carry a `thread` (published as a chain of replies). */
  threads!: boolean;
  /** What the channel takes as video; null when it takes none (or this service cannot publish video to it yet). */
  @ApiProperty({ type: VideoLimitsDto, nullable: true })
  video!: VideoLimitsDto | null;
  /** Whether posts may carry a `firstComment`, published as a comment on the post once it is live. */
  firstComment!: boolean;
}

/** A connected social account. Credentials are never returned. */
export class ChannelDto {
  @ApiProperty({ format: 'uuid' })
  id!: string;

  @ApiProperty({ enum: PROVIDER_IDS })
  provider!: ProviderId;

  /** Display name of the account (else its username). */
  name!: string;

  /** `@user@instance` on Mastodon, `@handle` on Bluesky. */
  @ApiProperty({ example: '@alice@mastodon.social' })
  handle!: string;

  @ApiProperty({ nullable: true, type: String, format: 'uri' })
  avatarUrl!: string | null;

  @ApiProperty({ nullable: true, type: String, format: 'uri' })
  profileUrl!: string | null;

  @ApiProperty({ enum: ['active', 'disconnected'] })
  status!: ChannelStatus;

  limits!: ChannelLimitsDto;

  @ApiProperty({ format: 'date-time' })
  connectedAt!: string;

  @ApiProperty({ format: 'date-time', nullable: true, type: String })
  disconnectedAt!: string | null;

  @ApiProperty({ format: 'date-time' })
  createdAt!: string;

  @ApiProperty({ format: 'date-time' })
  updatedAt!: string;

  static from(c: Channel): ChannelDto {
    return {
      id: c.id,
      provider: c.provider,
      name: c.name,
      handle: c.handle,
      avatarUrl: c.avatarUrl,
      profileUrl: c.profileUrl,
      status: c.status,
      limits: {
        maxCharacters: c.limits.maxCharacters,
        maxMedia: c.limits.maxMedia,
        threads: c.limits.threads === true,
        video: VideoLimitsDto.of(c.limits),
        firstComment: c.limits.firstComment === true,
      },
      connectedAt: c.connectedAt.toISOString(),
      disconnectedAt: c.disconnectedAt?.toISOString() ?? null,
      createdAt: c.createdAt.toISOString(),
      updatedAt: c.updatedAt.toISOString(),
    };
  }
}

/**
 * `data` of a `channel.connected` event: which channel of which workspace was connected (a new one, or
 * one reconnected), by any way in (credentials, OAuth, console, connect link). Read the channel itself
 * with `GET /channels/{channelId}`.
 */
export class ChannelConnectedDto {
  /** The channel, new or reactivated. */
  @ApiProperty({ format: 'uuid' })
  channelId!: string;

  /** Its network. */
  @ApiProperty({ enum: PROVIDER_IDS })
  provider!: ProviderId;

  /** The workspace it belongs to. */
  @ApiProperty({ format: 'uuid' })
  workspaceId!: string;
}

/** `data` of a `channel.disconnected` event: the channel as the API returns it, and why. */
export class ChannelDisconnectedDto extends ChannelDto {
  /** `user_request`: DELETE /channels/{id}; `credentials_revoked`: the network refused the stored credentials. */
  @ApiProperty({ enum: ['user_request', 'credentials_revoked'] })
  reason!: DisconnectReason;
}
