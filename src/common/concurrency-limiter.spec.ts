import { setTimeout as sleep } from 'node:timers/promises';
import { createLimiter } from './concurrency-limiter';

describe('createLimiter', () => {
  it('never runs more than the limit at once and runs every task', async () => {
    const limit = createLimiter(3);
    let active = 0;
    let peak = 0;
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        limit(async () => {
          active += 1;
          peak = Math.max(peak, active);
          await sleep(i % 3);
          active -= 1;
          return i;
        }),
      ),
    );
    expect(peak).toBe(3);
    expect(results).toEqual(Array.from({ length: 20 }, (_, i) => i));
  });

  it('frees the slot when a task fails', async () => {
    const limit = createLimiter(1);
    await expect(limit(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(limit(() => Promise.resolve(7))).resolves.toBe(7);
  });
});
