import { QueryFailedError } from 'typeorm';
import { withDeadlockRetry } from './deadlock-retry';

const pgError = (code: string) => Object.assign(new Error(`pg ${code}`), { code });

describe('withDeadlockRetry', () => {
  it('runs again after a deadlock, also when TypeORM wraps the driver error', async () => {
    const errors = [pgError('40P01'), new QueryFailedError('UPDATE', [], pgError('40001'))];
    let runs = 0;
    const result = await withDeadlockRetry(async () => {
      runs++;
      const err = errors.shift();
      if (err) throw err;
      return 'done';
    });
    expect(result).toBe('done');
    expect(runs).toBe(3);
  });

  it('gives up after the last attempt with the last error', async () => {
    let runs = 0;
    await expect(
      withDeadlockRetry(async () => {
        runs++;
        throw pgError('40P01');
      }, 2),
    ).rejects.toThrow('pg 40P01');
    expect(runs).toBe(2);
  });

  it('does not repeat other failures', async () => {
    let runs = 0;
    await expect(
      withDeadlockRetry(async () => {
        runs++;
        throw pgError('23505');
      }),
    ).rejects.toThrow('pg 23505');
    expect(runs).toBe(1);
  });
});
