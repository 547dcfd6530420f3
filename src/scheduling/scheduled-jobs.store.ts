import { Injectable } from '@nestjs/common';
import { DataSource, QueryRunner } from 'typeorm';

/** Columns a run's start is recorded in (raw SQL; checked against the entity by test/database/row-mappings). */
export const JOB_START_COLUMNS = 'name, every_ms, last_started_at, runs';
/** Columns a run's end is recorded in (raw SQL; checked by test/database/row-mappings). */
export const JOB_END_COLUMNS = 'last_finished_at, last_error';

/** A job whose advisory lock this process holds: its record, on the lock's connection. */
export interface LockedJob {
  /**
   * Records the start when the last one, by any process, is at least `dueMs` old (or `force`); false when
   * another process ran the job this period.
   */
  claim(everyMs: number, force: boolean, dueMs: number): Promise<boolean>;
  /** Records the end of the run and its error (null after a success). */
  finish(error: string | null): Promise<void>;
}

/**
 * The `scheduled_jobs` table (owned by scheduling) and the jobs' session advisory locks, each keyed by
 * the job's name (`hashtextextended('scheduled-job:<name>')`) and held on a connection of its own, so a
 * process that dies releases it with its connection.
 */
@Injectable()
export class ScheduledJobsStore {
  constructor(private readonly dataSource: DataSource) {}

  /** Runs `fn` holding the job's lock; null (without running it) when another process holds it. */
  async withJobLock<T>(name: string, fn: (job: LockedJob) => Promise<T>): Promise<T | null> {
    const runner = this.dataSource.createQueryRunner();
    await runner.connect();
    try {
      const [{ locked }] = (await runner.query('SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS locked', [
        lockKey(name),
      ])) as [{ locked: boolean }];
      if (!locked) return null;
      try {
        return await fn({
          claim: (everyMs, force, dueMs) => this.claim(runner, name, everyMs, force, dueMs),
          finish: (error) => this.finish(runner, name, error),
        });
      } finally {
        await runner.query('SELECT pg_advisory_unlock(hashtextextended($1, 0))', [lockKey(name)]);
      }
    } finally {
      await runner.release();
    }
  }

  private async claim(
    runner: QueryRunner,
    name: string,
    everyMs: number,
    force: boolean,
    dueMs: number,
  ): Promise<boolean> {
    const rows = (await runner.query(
      `INSERT INTO scheduled_jobs (${JOB_START_COLUMNS}) VALUES ($1, $2, now(), 1)
       ON CONFLICT (name) DO UPDATE SET every_ms = EXCLUDED.every_ms, last_started_at = now(), runs = scheduled_jobs.runs + 1
         WHERE $3 OR scheduled_jobs.last_started_at IS NULL
            OR scheduled_jobs.last_started_at <= now() - make_interval(secs => $4::double precision / 1000)
       RETURNING name`,
      [name, everyMs, force, dueMs],
    )) as unknown[];
    return rows.length > 0;
  }

  private async finish(runner: QueryRunner, name: string, error: string | null): Promise<void> {
    await runner.query(`UPDATE scheduled_jobs SET (${JOB_END_COLUMNS}) = (now(), $2) WHERE name = $1`, [name, error]);
  }
}

function lockKey(name: string): string {
  return `scheduled-job:${name}`;
}
