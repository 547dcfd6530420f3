import { Injectable } from '@nestjs/common';
import { ChannelsService } from '../channels/channels.service';
import { MediaService } from '../media/media.service';
import { PostsService } from '../posts/posts.service';

/** What a workspace did in a window, read from the features that own it (docs/adr/0052). */
export interface WorkspaceUsage {
  workspaceId: string;
  from: Date;
  to: Date;
  postsCreated: number;
  targetsPublished: number;
  targetsFailed: number;
  byNetwork: Record<string, { published: number; failed: number }>;
  mediaBytes: number;
}

/**
 * Usage per workspace: posts (created, targets published and failed per channel) from posts, the
 * network of each channel from channels, the bytes stored from media, each through its service.
 */
@Injectable()
export class WorkspaceUsageService {
  constructor(
    private readonly posts: PostsService,
    private readonly channels: ChannelsService,
    private readonly media: MediaService,
  ) {}

  async usage(workspaceId: string, from: Date, to: Date): Promise<WorkspaceUsage> {
    const [posts, mediaBytes] = await Promise.all([
      this.posts.usage(workspaceId, from, to),
      this.media.storedBytes(workspaceId),
    ]);
    const channels = await this.channels.findByIds(posts.byChannel.map((c) => c.channelId));
    const byNetwork: WorkspaceUsage['byNetwork'] = {};
    let targetsPublished = 0;
    let targetsFailed = 0;
    for (const c of posts.byChannel) {
      const provider = channels.get(c.channelId)?.provider ?? 'unknown';
      const network = (byNetwork[provider] ??= { published: 0, failed: 0 });
      network.published += c.published;
      network.failed += c.failed;
      targetsPublished += c.published;
      targetsFailed += c.failed;
    }
    return {
      workspaceId,
      from,
      to,
      postsCreated: posts.postsCreated,
      targetsPublished,
      targetsFailed,
      byNetwork,
      mediaBytes,
    };
  }
}
