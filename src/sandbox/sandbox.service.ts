import { Injectable } from '@nestjs/common';
import { ChannelsService } from '../channels/channels.service';
import { AppError } from '../common/errors';
import { Page } from '../common/pagination/pagination';
import { SandboxPost } from './sandbox-post.entity';
import { SandboxTimelineStore } from './sandbox-timeline.store';

/** Reading the sandbox network: a channel's timeline, scoped to the workspace. */
@Injectable()
export class SandboxService {
  constructor(
    private readonly channels: ChannelsService,
    private readonly store: SandboxTimelineStore,
  ) {}

  async timeline(
    workspaceId: string,
    channelId: string,
    q: { limit: number; cursor?: string },
  ): Promise<Page<SandboxPost>> {
    const channel = await this.channels.get(workspaceId, channelId);
    if (channel.provider !== 'sandbox') throw AppError.notFound('Sandbox channel');
    return this.store.list(channel.externalId, q);
  }
}
