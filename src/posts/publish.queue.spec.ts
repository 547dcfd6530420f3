import type { Queue } from 'bull';
import { EnqueueableTarget, PUBLISH_BATCH_TARGETS, PublishJobData, PublishQueue } from './publish.queue';

interface Added {
  name: string;
  data: PublishJobData;
  opts: { jobId: string; delay: number };
}

/** The jobs PublishQueue hands to Bull's addBulk (the grouping is what is under test, not Bull). */
function recordingQueue(): { queue: PublishQueue; added: Added[] } {
  const added: Added[] = [];
  const bull = {
    client: { status: 'ready' },
    addBulk: (jobs: Added[]) => {
      added.push(...jobs);
      return Promise.resolve([]);
    },
  };
  return { queue: new PublishQueue(bull as unknown as Queue<PublishJobData>), added };
}

function targets(n: number, dueAt: Date, from = 0): EnqueueableTarget[] {
  return Array.from({ length: n }, (_, i) => ({
    id: `00000000-0000-0000-0000-${String(from + i).padStart(12, '0')}`,
    publication: 1,
    attempts: 0,
    dueAt,
  }));
}

describe('PublishQueue.enqueue', () => {
  const past = new Date(Date.now() - 1_000);

  it('puts targets already due in batch jobs of PUBLISH_BATCH_TARGETS, the last one short', async () => {
    const { queue, added } = recordingQueue();
    await queue.enqueue(targets(PUBLISH_BATCH_TARGETS * 2 + 3, past));
    expect(added.map((j) => ('targets' in j.data ? j.data.targets.length : 1))).toEqual([
      PUBLISH_BATCH_TARGETS,
      PUBLISH_BATCH_TARGETS,
      3,
    ]);
    expect(added.every((j) => j.opts.jobId.startsWith('publish-batch:') && j.opts.delay === 0)).toBe(true);
  });

  it('gives a target due later, and a lone target due now, a job of its own under its deterministic id', async () => {
    const { queue, added } = recordingQueue();
    const later = targets(2, new Date(Date.now() + 60_000));
    const [lone] = targets(1, past, 10);
    await queue.enqueue([...later, lone]);
    expect(added.map((j) => j.opts.jobId).sort()).toEqual([...later, lone].map((t) => PublishQueue.jobId(t)).sort());
    expect(added.filter((j) => j.opts.delay > 50_000)).toHaveLength(2);
    expect(added.map((j) => j.data)).toContainEqual({ targetId: lone.id, publication: 1 });
  });

  it('names the same batch the same job, and batches sharing a target different jobs', async () => {
    const { queue, added } = recordingQueue();
    const due = targets(10, past);
    await queue.enqueue(due);
    await queue.enqueue([...due]);
    await queue.enqueue([...due.slice(0, 9), ...targets(1, past, 50)]);
    expect(added[0].opts.jobId).toBe(added[1].opts.jobId);
    expect(added[2].opts.jobId).not.toBe(added[0].opts.jobId);
  });

  it('enqueues a target named twice in one call once', async () => {
    const { queue, added } = recordingQueue();
    const due = targets(3, past);
    await queue.enqueue([...due, due[1]]);
    expect(added).toHaveLength(1);
    expect('targets' in added[0].data && added[0].data.targets.map((t) => t.targetId)).toEqual(due.map((t) => t.id));
  });

  it('gives every target a job of its own when asked not to batch (the reconciler)', async () => {
    const { queue, added } = recordingQueue();
    const due = targets(30, past);
    await queue.enqueue(due, { batch: false });
    expect(added.map((j) => j.opts.jobId)).toEqual(due.map((t) => PublishQueue.jobId(t)));
  });
});
