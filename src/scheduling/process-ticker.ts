import { Logger } from '@nestjs/common';

/** Per-process periodic work (see ProcessTicker). */
export interface ProcessTick {
  /** For the log line of a failed tick. */
  name: string;
  everyMs: number;
  run(): Promise<void>;
}

/**
 * The one idiom for periodic work that must run in every process rather than once per deployment
 * (a worker's heartbeat file, which says *this* process is alive): a timer in this process, no lock,
 * no record. Work shared by the deployment (pruning, sweeps, collection) is a PeriodicJobs job
 * instead: once per period under a named Postgres advisory lock, recorded in `scheduled_jobs`.
 *
 * The first tick runs at start(); a tick still running when the next one is due is not doubled;
 * stop() clears the timer and waits for the tick in progress. A failed tick is logged, the next one
 * runs as usual.
 */
export class ProcessTicker {
  private readonly logger = new Logger('ProcessTicker');
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(private readonly tick: ProcessTick) {
    if (!(tick.everyMs > 0)) throw new Error(`Process ticker ${tick.name} needs a positive period`);
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.runOnce(), this.tick.everyMs);
    this.timer.unref();
    void this.runOnce();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }

  private runOnce(): Promise<void> {
    this.running ??= this.tick
      .run()
      .catch((err: Error) => this.logger.warn(`${this.tick.name} failed: ${err.message}`))
      .finally(() => (this.running = undefined));
    return this.running;
  }
}
