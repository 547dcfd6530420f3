import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { EventsService } from '../events/events.service';
import { PublishedTargetsStore } from '../posts/published-targets.store';
import { AnalyticsService } from './analytics.service';

/** Events of a collection: one `analytics.updated` per changed post, in the batch's transaction. */
@Injectable()
export class AnalyticsEvents {
  constructor(
    private readonly published: PublishedTargetsStore,
    private readonly analytics: AnalyticsService,
    private readonly events: EventsService,
  ) {}

  /** Records the events of these posts (deleted ones are skipped), each carrying the analytics object GET returns. Returns how many. */
  async record(em: EntityManager, postIds: string[]): Promise<number> {
    if (postIds.length === 0) return 0;
    const workspaces = await this.published.workspacesOf(em, postIds);
    const analytics = await this.analytics.postAnalytics(em, postIds);
    for (const [postId, workspaceId] of workspaces) {
      await this.events.record(em, { type: 'analytics.updated', workspaceId, data: analytics.get(postId)! });
    }
    return workspaces.size;
  }
}
