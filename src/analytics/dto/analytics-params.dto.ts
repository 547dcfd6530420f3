import { IsUUID } from 'class-validator';

export class PostIdParamDto {
  /** Id of a post of the workspace (UUID). */
  @IsUUID('all', { message: 'must be a UUID' })
  postId!: string;
}

export class ChannelIdParamDto {
  /** Id of a channel of the workspace (UUID). */
  @IsUUID('all', { message: 'must be a UUID' })
  channelId!: string;
}
