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
    const batcher = new MicroBatcher<number, number>(async (items) => {
      sizes.push(items.length);
      return items;
    }, 2);
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
