import {
  BeforeApplicationShutdown,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnModuleDestroy,
  Optional,
} from '@nestjs/common';
import { ShutdownDeadline } from '../queue/shutdown-deadline';
import { ScheduledJobsStore } from './scheduled-jobs.store';

/** One periodic job. */
export interface PeriodicJob<T = unknown> {
  /**
   * Unique name, `<module>.<job>` (e.g. `posts.reconcile`): the key of the job's Postgres advisory
   * lock and of its row in `scheduled_jobs`.
   */
  name: string;
  /** Period. Each process ticks at this period; a run starts only when the last one, anywhere, is this old. */
  everyMs: number;
  /** The work. `signal` aborts when the process shuts down: stop early, leaving the rest due. */
  run(signal: AbortSignal): Promise<T>;
  /** Summary to log after a run (nothing is logged when it returns undefined). */
  describe?(result: T): Record<string, unknown> | undefined;
}

interface Entry {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- each entry keeps its own result type
  job: PeriodicJob<any>;
  timer?: NodeJS.Timeout;
  running?: Promise<unknown>;
}

/** A tick this close to the period after the last start still runs (timers of several processes drift). */
const DUE_FRACTION = 0.8;

/**
 * The one way to run periodic work. Every process that registers a job ticks it every `everyMs`;
 * a tick takes a session advisory lock named after the job on a dedicated connection (so two
 * processes never run it at once, and a process that dies releases it with its connection), checks
 * in `scheduled_jobs` that the last run, by any process, is a period old, records the start, runs,
 * and records the end. Nothing lives in Redis: flushing it loses no schedule. Jobs registered before
 * start-up completes start with the application; the first tick runs at once. On SIGTERM no new run
 * starts, runs in progress see their signal aborted (they stop between batches) and are waited for until
 * the shared drain deadline; one still running then is released with its lock when the process exits.
 */
@Injectable()
export class PeriodicJobs implements OnApplicationBootstrap, OnModuleDestroy, BeforeApplicationShutdown {
  private readonly logger = new Logger('PeriodicJobs');
  private readonly jobs = new Map<string, Entry>();
  private readonly stopping = new AbortController();
  private started = false;

  constructor(
    private readonly store: ScheduledJobsStore,
    /** The process's drain budget; without one (an instance made by hand) shutdown waits for runs to end. */
    @Optional() private readonly shutdown?: ShutdownDeadline,
  ) {}

  /** Registers a job (call from onModuleInit). Names are unique per process. */
  every<T>(job: PeriodicJob<T>): void {
    if (this.jobs.has(job.name)) throw new Error(`Periodic job ${job.name} is registered twice`);
    if (!(job.everyMs > 0)) throw new Error(`Periodic job ${job.name} needs a positive period`);
    const entry: Entry = { job };
    this.jobs.set(job.name, entry);
    if (this.started) this.start(entry);
  }

  /** Names of the registered jobs with their period, for tests and operators. */
  registered(): Array<{ name: string; everyMs: number }> {
    return [...this.jobs.values()].map(({ job }) => ({ name: job.name, everyMs: job.everyMs }));
  }

  /**
   * Waits for a run of this process in progress, then runs the job once more whether or not it is
   * due. Null when another process holds the job's lock. For tests, operators and benchmarks.
   */
  async runNow<T>(name: string): Promise<T | null> {
    const entry = this.jobs.get(name);
    if (!entry) throw new Error(`No periodic job named ${name}`);
    await entry.running?.catch(() => undefined);
    return this.tick(entry, true) as Promise<T | null>;
  }

  onApplicationBootstrap(): void {
    this.started = true;
    for (const entry of this.jobs.values()) this.start(entry);
  }

  /** SIGTERM, first step: no new run starts, and runs in progress are asked to stop between batches. */
  onModuleDestroy(): void {
    this.shutdown?.begin();
    this.stopping.abort();
    for (const entry of this.jobs.values()) clearInterval(entry.timer);
  }

  /** Waits for runs in progress (until the drain deadline), before the database connections close. */
  async beforeApplicationShutdown(): Promise<void> {
    this.onModuleDestroy();
    const running = Promise.all(
      [...this.jobs.values()].map((e) => (e.running ?? Promise.resolve()).catch(() => undefined)),
    );
    if (this.shutdown) await this.shutdown.wait(running);
    else await running;
  }

  private start(entry: Entry): void {
    entry.timer = setInterval(() => void this.tick(entry, false), entry.job.everyMs);
    entry.timer.unref();
    void this.tick(entry, false);
  }

  private tick(entry: Entry, force: boolean): Promise<unknown> {
    if (this.stopping.signal.aborted) return Promise.resolve(null);
    if (entry.running) return entry.running;
    const { job } = entry;
    const running = this.runLocked(job, force)
      .then((result) => {
        const summary = result === null ? undefined : job.describe?.(result);
        if (summary) this.logger.log({ msg: `${job.name} ran`, ...summary });
        return result;
      })
      .catch((err: Error) => {
        this.logger.warn(`${job.name} failed: ${err.message}`);
        if (force) throw err;
        return null;
      })
      .finally(() => {
        if (entry.running === running) entry.running = undefined;
      });
    entry.running = running;
    return running;
  }

  private async runLocked(job: PeriodicJob, force: boolean): Promise<unknown> {
    return this.store.withJobLock(job.name, async (locked) => {
      if (!(await locked.claim(job.everyMs, force, job.everyMs * DUE_FRACTION))) return null;
      try {
        const result = await job.run(this.stopping.signal);
        await locked.finish(null);
        return result;
      } catch (err) {
        await locked.finish((err as Error).message ?? String(err)).catch(() => undefined);
        throw err;
      }
    });
  }
}
