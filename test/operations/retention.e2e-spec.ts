import { RETENTION_JOB, RetentionStats } from '../../src/retention/retention.job';
import { PeriodicJobs } from '../../src/scheduling/periodic-jobs.service';
import { TestApp } from '../support/test-app';

describe('retention', () => {
  let t: TestApp;
  let workspaceId: string;
  let webhookId: string;
  const runNow = () => t.app.get(PeriodicJobs).runNow<RetentionStats>(RETENTION_JOB);

  beforeAll(async () => {
    // Batches of 2 so that a run needs several statements. The periodic job runs through runNow only
    // (a day-long interval keeps the timer out of the way); an event the relay dispatches meanwhile
    // is dispatched now, which retention keeps for 30 days.
    t = await TestApp.start({ env: { RETENTION_BATCH_SIZE: '2', RETENTION_INTERVAL_SECONDS: '86400' } });
    ({ workspaceId } = await t.createWorkspace());
    [{ id: webhookId }] = await t.dataSource.query(
      `INSERT INTO webhooks (workspace_id, url, events, secret) VALUES ($1, 'https://example.org/h', '{}', 'sealed')
       RETURNING id`,
      [workspaceId],
    );
    // The job's first run starts with the app; on a loaded machine it can still be running when the
    // rows below are inserted and delete them before the run under test. Wait for it (runNow waits
    // for a run in progress, then runs once more on the still empty tables).
    await runNow();
  });
  afterAll(async () => {
    await t?.close();
  });

  async function event(daysAgo: number, dispatched: boolean): Promise<string> {
    const [{ id }] = await t.dataSource.query(
      `INSERT INTO events (workspace_id, type, data, created_at, dispatched_at)
       VALUES ($1, 'post.published', '{}', now() - make_interval(days => $2),
               CASE WHEN $3 THEN now() - make_interval(days => $2) END)
       RETURNING id`,
      [workspaceId, daysAgo, dispatched],
    );
    return id;
  }

  async function delivery(status: string, daysAgo: number): Promise<string> {
    const [{ id }] = await t.dataSource.query(
      `INSERT INTO webhook_deliveries (workspace_id, webhook_id, event_id, event_type, status, attempts, created_at, updated_at)
       VALUES ($1, $2, gen_random_uuid(), 'post.published', $3, 1, now() - make_interval(days => $4), now() - make_interval(days => $4))
       RETURNING id, event_id`,
      [workspaceId, webhookId, status, daysAgo],
    );
    await t.dataSource.query(
      `INSERT INTO webhook_delivery_attempts
         (workspace_id, webhook_id, delivery_id, event_id, event_type, attempt, duration_ms, succeeded, created_at)
       SELECT workspace_id, webhook_id, id, event_id, event_type, 1, 5, status = 'succeeded', created_at
         FROM webhook_deliveries WHERE id = $1`,
      [id],
    );
    return id;
  }

  const ids = async (table: string): Promise<string[]> =>
    (await t.dataSource.query(`SELECT id FROM ${table}`)).map((r: { id: string }) => r.id);

  it('deletes dispatched events after 30 days, settled deliveries after 30 and failed ones after 90, in batches', async () => {
    const oldDispatched = await Promise.all([
      event(31, true),
      event(40, true),
      event(45, true),
      event(60, true),
      event(90, true),
    ]);
    const keptEvents = [await event(29, true), await event(60, false)]; // recent; old but never dispatched
    const goneDeliveries = [
      await delivery('succeeded', 31),
      await delivery('succeeded', 50),
      await delivery('cancelled', 40),
      await delivery('failed', 91),
    ];
    const keptDeliveries = [
      await delivery('succeeded', 29),
      await delivery('failed', 31), // failed ones are kept 90 days
      await delivery('pending', 120), // never while pending
    ];

    const stats = await runNow();
    expect(stats).toEqual({ events: 5, deliveries: 3, failedDeliveries: 1, sessions: 0 });

    const events = await ids('events');
    expect(events).toEqual(expect.arrayContaining(keptEvents));
    expect(events.filter((id) => oldDispatched.includes(id))).toEqual([]);
    expect((await ids('webhook_deliveries')).sort()).toEqual([...keptDeliveries].sort());
    const attempts: Array<{ delivery_id: string }> = await t.dataSource.query(
      'SELECT delivery_id FROM webhook_delivery_attempts',
    );
    expect(attempts.map((a) => a.delivery_id).sort()).toEqual([...keptDeliveries].sort());
    expect(goneDeliveries).toHaveLength(4);

    // A second run finds nothing.
    await expect(runNow()).resolves.toEqual({
      events: 0,
      deliveries: 0,
      failedDeliveries: 0,
      sessions: 0,
    });
  });

  it('deletes console sessions 30 days after they ended (signed out, expired or idle), never a live one, in batches', async () => {
    const [{ id: userId }] = await t.dataSource.query(
      `INSERT INTO users (email) VALUES ('retention@example.org') RETURNING id`,
    );
    /** A session seen `seenDaysAgo` days ago, expiring `expiresInDays` from now, revoked `revokedDaysAgo` ago. */
    const session = async (seenDaysAgo: number, expiresInDays: number, revokedDaysAgo: number | null) => {
      const [{ id }] = await t.dataSource.query(
        `INSERT INTO console_sessions (token_hash, user_id, workspace_id, created_at, last_seen_at, expires_at, revoked_at)
         VALUES (md5(random()::text) || md5(random()::text), $1, $2, now() - make_interval(days => $3),
                 now() - make_interval(days => $3), now() + make_interval(days => $4),
                 now() - make_interval(days => $5))
         RETURNING id`,
        [userId, workspaceId, seenDaysAgo, expiresInDays, revokedDaysAgo],
      );
      return id as string;
    };
    // Idle expiry is CONSOLE_SESSION_IDLE_MINUTES (60) after the last use; absolute expiry is expires_at.
    const gone = [
      await session(40, 5, 31), // signed out 31 days ago
      await session(45, -35, null), // expired 35 days ago
      await session(31, 5, null), // idle since 31 days
      await session(60, -40, 50), // all three, long ago
      await session(33, -32, null),
    ];
    const kept = [
      await session(0, 1, null), // live
      await session(2, 1, 1), // signed out yesterday
      await session(29, -29, null), // expired 29 days ago
      await session(29, 5, null), // idle for 29 days (ended 29 days minus an hour ago)
    ];

    // Not `events`: the first test's old undispatched event is dispatched by the relay at some point,
    // and then pruned by whichever run comes next.
    expect(await runNow()).toMatchObject({ deliveries: 0, failedDeliveries: 0, sessions: gone.length });
    expect((await ids('console_sessions')).sort()).toEqual([...kept].sort());
    await expect(runNow()).resolves.toMatchObject({ sessions: 0 });
  });
});
