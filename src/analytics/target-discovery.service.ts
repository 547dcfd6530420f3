import { Injectable } from '@nestjs/common';
import { PublishedTargetsStore } from '../posts/published-targets.store';
import { TargetMetricsStore } from './target-metrics.store';

/**
 * How far back each scheduled discovery looks before the latest known publication. A target is
 * stamped `published_at` by its publishing transaction and becomes visible when that commits; one
 * committed more than this after its stamp would be missed by scheduled runs (a refresh of its post
 * still finds it). Targets in the overlap are offered again and ignored.
 */
export const DISCOVERY_OVERLAP_MS = 3_600_000;
/** Published targets read per page. */
const DISCOVERY_PAGE = 5_000;

/**
 * Discovery: gives every published target its target_metrics row, due at once when published less
 * than 30 days ago. Published targets come from the posts module's store; a scheduled run asks for
 * those published since the latest one it knows (minus an overlap), a refresh for its post's.
 */
@Injectable()
export class TargetDiscovery {
  constructor(
    private readonly published: PublishedTargetsStore,
    private readonly metrics: TargetMetricsStore,
  ) {}

  async discover(runStartedAt: Date, postId?: string): Promise<void> {
    let since: Date | null = null;
    if (postId === undefined) {
      const latest = await this.metrics.latestPublishedAt();
      since = latest && new Date(latest.getTime() - DISCOVERY_OVERLAP_MS);
    }
    let afterId: string | undefined;
    for (;;) {
      const page = await this.published.listPublished({ since, postId, afterId, limit: DISCOVERY_PAGE });
      await this.metrics.insertDiscovered(page, runStartedAt);
      if (page.length < DISCOVERY_PAGE) return;
      afterId = page[page.length - 1].id;
    }
  }
}
