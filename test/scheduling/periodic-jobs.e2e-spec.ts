import { DataSource } from 'typeorm';
import { buildDataSourceOptions } from '../../src/database/data-source-options';
import { PeriodicJobs } from '../../src/scheduling/periodic-jobs.service';
import { ScheduledJobsStore } from '../../src/scheduling/scheduled-jobs.store';
import { TestEnvironment } from '../support/test-app';

/** Two PeriodicJobs instances stand for two worker processes sharing one database. */
describe('PeriodicJobs (periodic jobs under a named Postgres lock)', () => {
  const env = new TestEnvironment();
  let ds1: DataSource;
  let ds2: DataSource;
  let a: PeriodicJobs;
  let b: PeriodicJobs;

  beforeAll(async () => {
    await env.create();
    ds1 = await new DataSource(buildDataSourceOptions(env.databaseUrl, 4)).initialize();
    ds2 = await new DataSource(buildDataSourceOptions(env.databaseUrl, 4)).initialize();
  });
  beforeEach(() => {
    a = new PeriodicJobs(new ScheduledJobsStore(ds1));
    b = new PeriodicJobs(new ScheduledJobsStore(ds2));
  });
  afterEach(async () => {
    await a.beforeApplicationShutdown();
    await b.beforeApplicationShutdown();
  });
  afterAll(async () => {
    await ds1?.destroy();
    await ds2?.destroy();
    await env.destroy();
  });

  const row = async (name: string) =>
    (
      await ds1.query('SELECT every_ms, runs, last_error, last_finished_at FROM scheduled_jobs WHERE name = $1', [name])
    )[0];

  it('never runs a job in two processes at once: the second gets null while the first holds the lock', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let runs = 0;
    const job = { name: 'test.exclusive', everyMs: 60_000, run: async () => (runs++, await gate, 'done') };
    a.every(job);
    b.every(job);
    const first = a.runNow('test.exclusive');
    await new Promise((r) => setTimeout(r, 200));
    await expect(b.runNow('test.exclusive')).resolves.toBeNull();
    release();
    await expect(first).resolves.toBe('done');
    expect(runs).toBe(1);
    expect(await row('test.exclusive')).toEqual(
      expect.objectContaining({ every_ms: 60_000, runs: 1, last_error: null, last_finished_at: expect.any(Date) }),
    );
  });

  it('runs once per period across processes, records failures, and keeps the record in Postgres', async () => {
    let runs = 0;
    const job = {
      name: 'test.periodic',
      everyMs: 60_000,
      run: () => {
        runs++;
        return Promise.reject(new Error('boom'));
      },
    };
    a.every(job);
    b.every(job);
    a.onApplicationBootstrap(); // first tick at once
    await new Promise((r) => setTimeout(r, 500));
    b.onApplicationBootstrap(); // not due: a ran it less than a period ago
    await new Promise((r) => setTimeout(r, 500));
    expect(runs).toBe(1);
    expect(await row('test.periodic')).toEqual(expect.objectContaining({ runs: 1, last_error: 'boom' }));
    await expect(b.runNow('test.periodic')).rejects.toThrow('boom'); // forced: runs although not due
    expect(runs).toBe(2);
  });

  it('refuses a name registered twice', () => {
    a.every({ name: 'test.twice', everyMs: 1000, run: async () => undefined });
    expect(() => a.every({ name: 'test.twice', everyMs: 1000, run: async () => undefined })).toThrow(/twice/);
  });
});
