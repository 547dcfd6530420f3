import { Figures, figuresChanged, figuresOf } from './analytics-figures';
import { nextCollectAt } from './collection-cadence';
import type { DueTarget, Outcome } from './figures-reader.service';
import type { FiguresWrite, StoredFigures } from './target-metrics.store';

/** What one batch writes, decided from its outcomes and the figures stored (locked) before it. */
export interface BatchPlan {
  /** New latest figures (each read not older than the stored one). */
  updates: FiguresWrite[];
  /** The updates whose figures changed: one snapshot each. */
  snapshots: FiguresWrite[];
  /** Targets refused or skipped: only their next due time moves. */
  reschedules: Array<{ targetId: string; next: Date | null }>;
  /** Posts with at least one snapshot: one `analytics.updated` each. */
  changedPosts: string[];
}

/**
 * Change detection. Targets to retry are left as they are (still due); targets without a stored
 * row (post deleted meanwhile) are dropped; a read older than the stored one (a concurrent
 * refresh stored a newer one) is dropped. The first read counts as a change when any figure is
 * non-zero.
 */
export function planBatch(
  targets: DueTarget[],
  outcomes: Map<string, Outcome>,
  stored: StoredFigures[],
  runStartedAt: Date,
  intervalMs: number,
): BatchPlan {
  const locked = new Map<string, { figures: Figures | null; at: Date | null }>(
    stored.map((s) => [s.targetId, { figures: s.collectedAt ? figuresOf(s) : null, at: s.collectedAt }]),
  );
  const plan: BatchPlan = { updates: [], snapshots: [], reschedules: [], changedPosts: [] };
  const changedPosts = new Set<string>();
  for (const t of targets) {
    const outcome = outcomes.get(t.targetId);
    if (!outcome || outcome.kind === 'retry') continue;
    const current = locked.get(t.targetId);
    if (!current) continue; // the post was deleted meanwhile
    const next = nextCollectAt(t.publishedAt, runStartedAt, intervalMs);
    if (outcome.kind !== 'read') {
      plan.reschedules.push({ targetId: t.targetId, next });
      continue;
    }
    if (current.at && current.at >= outcome.at) continue; // a newer read (a concurrent refresh) is stored already
    const write: FiguresWrite = { target: t, figures: outcome.figures, raw: outcome.raw, at: outcome.at, next };
    plan.updates.push(write);
    if (figuresChanged(current.figures, outcome.figures)) {
      plan.snapshots.push(write);
      changedPosts.add(t.postId);
    }
  }
  plan.changedPosts = [...changedPosts];
  return plan;
}

/** The targets a batch settles (reads, refusals, skips), whose stored rows it locks. */
export function settledTargets(targets: DueTarget[], outcomes: Map<string, Outcome>): DueTarget[] {
  return targets.filter((t) => outcomes.get(t.targetId)?.kind !== 'retry');
}
