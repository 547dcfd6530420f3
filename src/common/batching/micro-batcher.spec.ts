import { MicroBatcher } from './micro-batcher';

describe('MicroBatcher', () => {
  it('groups calls of one event-loop turn into one batch and resolves each with its own result', async () => {
    const batches: number[][] = [];
    const batcher = new MicroBatcher<number, number>(async (items) => {
      batches.push(items);
      return items.map((n) => n * 2);
    });
    const results = await Promise.all([1, 2, 3].map((n) => batcher.push(n)));
    expect(results).toEqual([2, 4, 6]);
    expect(batches).toEqual([[1, 2, 3]]);
    expect(await batcher.push(4)).toBe(8);
    expect(batches).toEqual([[1, 2, 3], [4]]);
  });

  it('splits at maxBatch', async () => {
    const sizes: number[] = [];
    const batcher = new MicroBatcher<number, number>(
      async (items) => {
        sizes.push(items.length);
        return items;
      },
      { maxBatch: 2 },
    );
    await Promise.all([1, 2, 3, 4, 5].map((n) => batcher.push(n)));
    expect(sizes).toEqual([2, 2, 1]);
  });

  it('rejects every call of a failed batch', async () => {
    const batcher = new MicroBatcher<number, number>(async () => {
      throw new Error('db down');
    });
    const results = await Promise.allSettled([batcher.push(1), batcher.push(2)]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
  });
});

describe('MicroBatcher with maxInFlight', () => {
  it('queues items while the limit of batches runs, then runs them together', async () => {
    const sizes: number[] = [];
    let running = 0;
    let maxRunning = 0;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const batcher = new MicroBatcher<number, number>(
      async (items) => {
        running++;
        maxRunning = Math.max(maxRunning, running);
        sizes.push(items.length);
        if (sizes.length === 1) await gate;
        running--;
        return items.map((n) => n + 1);
      },
      { maxInFlight: 1 },
    );
    const first = batcher.push(1);
    await new Promise((r) => setImmediate(r)); // the first batch is now running
    const later = [2, 3, 4].map((n) => batcher.push(n));
    await new Promise((r) => setImmediate(r));
    expect(sizes).toEqual([1]); // held back while the first batch runs
    release();
    expect(await Promise.all([first, ...later])).toEqual([2, 3, 4, 5]);
    expect(sizes).toEqual([1, 3]);
    expect(maxRunning).toBe(1);
  });

  it('keeps going after a failed batch', async () => {
    let calls = 0;
    const batcher = new MicroBatcher<number, number>(
      async (items) => {
        if (++calls === 1) throw new Error('first fails');
        return items;
      },
      { maxInFlight: 1 },
    );
    const a = batcher.push(1).catch((err: Error) => err.message);
    await new Promise((r) => setImmediate(r));
    const b = batcher.push(2);
    expect(await a).toBe('first fails');
    await expect(b).resolves.toBe(2);
  });
});
