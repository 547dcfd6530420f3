import { Figures, emptyFigures } from './analytics-figures';
import { planBatch, settledTargets } from './change-detection';
import { nextCollectAt } from './collection-cadence';
import type { DueTarget, Outcome } from './figures-reader.service';
import type { StoredFigures } from './target-metrics.store';

const RUN = new Date('2026-03-01T12:00:00.000Z');
const INTERVAL = 300_000;
const PUBLISHED = new Date('2026-03-01T10:00:00.000Z');

function target(id: string, postId = `post-${id}`): DueTarget {
  return { targetId: id, postId, channelId: 'c1', publishedAt: PUBLISHED, platformPostId: `p-${id}`, url: null };
}
function stored(id: string, figures: Figures | null, at: Date | null = null): StoredFigures {
  return { targetId: id, ...(figures ?? emptyFigures()), collectedAt: at };
}
function read(figures: Partial<Figures>, at = new Date('2026-03-01T12:00:01.000Z')): Outcome {
  return { kind: 'read', figures: { ...emptyFigures(), ...figures }, raw: { source: 'test' }, at };
}

describe('planBatch (change detection)', () => {
  const next = nextCollectAt(PUBLISHED, RUN, INTERVAL);

  it('a first read with a non-zero figure is an update, a snapshot and an event for its post', () => {
    const plan = planBatch([target('a')], new Map([['a', read({ likes: 3 })]]), [stored('a', null)], RUN, INTERVAL);
    expect(plan.updates).toHaveLength(1);
    expect(plan.updates[0]).toMatchObject({ figures: { likes: 3 }, next });
    expect(plan.snapshots).toEqual(plan.updates);
    expect(plan.changedPosts).toEqual(['post-a']);
    expect(plan.reschedules).toEqual([]);
  });

  it('a first read of zeros only stores the figures (no snapshot, no event)', () => {
    const plan = planBatch([target('a')], new Map([['a', read({ likes: 0 })]]), [stored('a', null)], RUN, INTERVAL);
    expect(plan.updates).toHaveLength(1);
    expect(plan.snapshots).toEqual([]);
    expect(plan.changedPosts).toEqual([]);
  });

  it('an unchanged read updates the read time only; a changed one snapshots', () => {
    const before = { ...emptyFigures(), likes: 2 };
    const at = new Date('2026-03-01T11:00:00.000Z');
    const plan = planBatch(
      [target('same', 'p1'), target('changed', 'p1')],
      new Map([
        ['same', read({ likes: 2 })],
        ['changed', read({ likes: 5 })],
      ]),
      [stored('same', before, at), stored('changed', before, at)],
      RUN,
      INTERVAL,
    );
    expect(plan.updates.map((u) => u.target.targetId)).toEqual(['same', 'changed']);
    expect(plan.snapshots.map((u) => u.target.targetId)).toEqual(['changed']);
    expect(plan.changedPosts).toEqual(['p1']);
  });

  it('a read not newer than the stored one (a concurrent refresh) is dropped', () => {
    const at = new Date('2026-03-01T12:00:05.000Z');
    const plan = planBatch(
      [target('a')],
      new Map([['a', read({ likes: 9 }, new Date('2026-03-01T12:00:01.000Z'))]]),
      [stored('a', { ...emptyFigures(), likes: 1 }, at)],
      RUN,
      INTERVAL,
    );
    expect(plan).toEqual({ updates: [], snapshots: [], reschedules: [], changedPosts: [] });
  });

  it('gone and skipped targets move to their next slot; retries and deleted targets are left alone', () => {
    const outcomes = new Map<string, Outcome>([
      ['gone', { kind: 'gone' }],
      ['skipped', { kind: 'skipped' }],
      ['retry', { kind: 'retry' }],
      ['deleted', read({ likes: 1 })],
    ]);
    const targets = ['gone', 'skipped', 'retry', 'deleted'].map((id) => target(id));
    const plan = planBatch(
      targets,
      outcomes,
      [stored('gone', null), stored('skipped', null), stored('retry', null)],
      RUN,
      INTERVAL,
    );
    expect(plan.reschedules).toEqual([
      { targetId: 'gone', next },
      { targetId: 'skipped', next },
    ]);
    expect(plan.updates).toEqual([]);
    expect(settledTargets(targets, outcomes).map((t) => t.targetId)).toEqual(['gone', 'skipped', 'deleted']);
  });

  it('one event per post however many of its targets changed', () => {
    const plan = planBatch(
      [target('a', 'p'), target('b', 'p')],
      new Map([
        ['a', read({ likes: 1 })],
        ['b', read({ reposts: 1 })],
      ]),
      [stored('a', null), stored('b', null)],
      RUN,
      INTERVAL,
    );
    expect(plan.snapshots).toHaveLength(2);
    expect(plan.changedPosts).toEqual(['p']);
  });
});
