import { OAUTH_PURGE_JOB } from '../../src/oauth/oauth-purge.job';
import type { PurgeStats } from '../../src/oauth/oauth.service';
import { PeriodicJobs } from '../../src/scheduling/periodic-jobs.service';
import { TestApp } from '../support/test-app';

describe('purge of expired OAuth authorizations (oauth.purge)', () => {
  let t: TestApp;
  let workspaceId: string;
  const runNow = () => t.app.get(PeriodicJobs).runNow<PurgeStats>(OAUTH_PURGE_JOB);

  beforeAll(async () => {
    // A day-long period keeps the timer out of the way: the job runs through runNow.
    t = await TestApp.start({ env: { OAUTH_PURGE_INTERVAL_SECONDS: '86400' } });
    ({ workspaceId } = await t.createWorkspace());
  });
  afterAll(async () => {
    await t?.close();
  });

  async function state(expiresInSeconds: number, used: boolean): Promise<string> {
    const [{ id }] = await t.dataSource.query(
      `INSERT INTO oauth_states (state_hash, workspace_id, provider, code_verifier, expires_at, used_at)
       VALUES (md5(random()::text) || md5(random()::text), $1, 'linkedin', 'sealed', now() + make_interval(secs => $2),
               CASE WHEN $3 THEN now() END)
       RETURNING id`,
      [workspaceId, expiresInSeconds, used],
    );
    return id;
  }

  async function connection(expiresInSeconds: number, used: boolean): Promise<string> {
    const [{ id }] = await t.dataSource.query(
      `INSERT INTO oauth_connections (workspace_id, provider, targets, expires_at, used_at)
       VALUES ($1, 'linkedin', 'sealed', now() + make_interval(secs => $2), CASE WHEN $3 THEN now() END)
       RETURNING id`,
      [workspaceId, expiresInSeconds, used],
    );
    return id;
  }

  const ids = async (table: string): Promise<string[]> =>
    (await t.dataSource.query(`SELECT id FROM ${table}`)).map((r: { id: string }) => r.id).sort();

  it('is a periodic job of the worker, under the PeriodicJobs', () => {
    expect(t.app.get(PeriodicJobs).registered()).toContainEqual({ name: OAUTH_PURGE_JOB, everyMs: 86_400_000 });
  });

  it('deletes expired states (used or not) and expired connections, and keeps the rest', async () => {
    await runNow(); // whatever the start-up tick left
    const gone = [
      await state(-60, false),
      await state(-1, true),
      await connection(-60, false),
      await connection(-5, true),
    ];
    const keptStates = [await state(600, false), await state(600, true)];
    const keptConnections = [await connection(900, false), await connection(900, true)];

    await expect(runNow()).resolves.toEqual({ states: 2, connections: 2 });
    expect(await ids('oauth_states')).toEqual([...keptStates].sort());
    expect(await ids('oauth_connections')).toEqual([...keptConnections].sort());
    expect(gone).toHaveLength(4);

    await expect(runNow()).resolves.toEqual({ states: 0, connections: 0 });
    const [job] = await t.dataSource.query(`SELECT runs, last_error FROM scheduled_jobs WHERE name = $1`, [
      OAUTH_PURGE_JOB,
    ]);
    expect(job.last_error).toBeNull();
    expect(job.runs).toBeGreaterThanOrEqual(3);
  });
});
