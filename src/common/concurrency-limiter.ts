/** Runs at most `limit` tasks at once; the others wait in FIFO order. */
export type Limiter = <T>(task: () => Promise<T>) => Promise<T>;

export function createLimiter(limit: number): Limiter {
  let active = 0;
  const waiting: Array<() => void> = [];
  return async <T>(task: () => Promise<T>): Promise<T> => {
    if (active >= limit) await new Promise<void>((resolve) => waiting.push(resolve));
    else active += 1;
    try {
      return await task();
    } finally {
      // Hand the slot straight to the next waiter, so a new caller cannot squeeze in between.
      const next = waiting.shift();
      if (next) next();
      else active -= 1;
    }
  };
}
