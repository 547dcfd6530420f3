import { ProcessTicker } from './process-ticker';

describe('ProcessTicker (per-process periodic work)', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('ticks at start and every period, never two ticks at once, and stop waits for the one running', async () => {
    let runs = 0;
    let release: (() => void) | undefined;
    const ticker = new ProcessTicker({
      name: 'test',
      everyMs: 1_000,
      run: () => {
        runs++;
        return new Promise<void>((resolve) => (release = resolve));
      },
    });
    ticker.start();
    expect(runs).toBe(1);
    await jest.advanceTimersByTimeAsync(3_000); // the first tick still runs: not doubled
    expect(runs).toBe(1);
    release!();
    await jest.advanceTimersByTimeAsync(1_000);
    expect(runs).toBe(2);
    let stopped = false;
    const stopping = ticker.stop().then(() => (stopped = true));
    await jest.advanceTimersByTimeAsync(0);
    expect(stopped).toBe(false);
    release!();
    await stopping;
    await jest.advanceTimersByTimeAsync(5_000);
    expect(runs).toBe(2);
  });

  it('goes on after a failed tick', async () => {
    let runs = 0;
    const ticker = new ProcessTicker({
      name: 'test',
      everyMs: 1_000,
      run: async () => {
        runs++;
        throw new Error('boom');
      },
    });
    ticker.start();
    await jest.advanceTimersByTimeAsync(2_000);
    expect(runs).toBe(3);
    await ticker.stop();
  });
});
