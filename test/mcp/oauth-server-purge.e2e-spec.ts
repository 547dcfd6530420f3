import { randomBytes } from 'node:crypto';
import { OAUTH_SERVER_PURGE_JOB } from '../../src/oauth-server/oauth-server-purge.job';
import type { OAuthServerPurgeStats } from '../../src/oauth-server/oauth-server.service';
import { PeriodicJobs } from '../../src/scheduling/periodic-jobs.service';
import { TestApp } from '../support/test-app';

describe('purge of expired authorization codes and tokens (oauth-server.purge)', () => {
  let t: TestApp;
  let workspaceId: string;
  let clientId: string;
  let userId: string;
  let grantId: string;
  const runNow = () => t.app.get(PeriodicJobs).runNow<OAuthServerPurgeStats>(OAUTH_SERVER_PURGE_JOB);
  const hash = () => randomBytes(32).toString('hex');
  const DAY = 86_400;

  beforeAll(async () => {
    // A day-long period keeps the timer out of the way: the job runs through runNow.
    t = await TestApp.start({ env: { MCP_OAUTH_PURGE_INTERVAL_SECONDS: '86400' } });
    let apiKeyId: string;
    ({ workspaceId, apiKeyId } = await t.createWorkspace());
    [{ id: clientId }] = await t.dataSource.query(
      `INSERT INTO oauth_clients (name, redirect_uris) VALUES ('agent', '{http://127.0.0.1/cb}') RETURNING id`,
    );
    [{ id: userId }] = await t.dataSource.query(
      `INSERT INTO users (email) VALUES ('purge-${hash().slice(0, 8)}@example.com') RETURNING id`,
    );
    [{ id: grantId }] = await t.dataSource.query(
      `INSERT INTO oauth_grants (client_id, workspace_id, user_id, api_key_id, scopes, resource)
       VALUES ($1, $2, $3, $4, '{posts:read}', 'http://127.0.0.1/mcp') RETURNING id`,
      [clientId, workspaceId, userId, apiKeyId],
    );
  });
  afterAll(async () => {
    await t?.close();
  });

  async function code(expiresInSeconds: number, used: boolean): Promise<string> {
    const h = hash();
    await t.dataSource.query(
      `INSERT INTO oauth_authorization_codes
         (code_hash, client_id, workspace_id, user_id, redirect_uri, code_challenge, scopes, resource, expires_at, used_at)
       VALUES ($1, $2, $3, $4, 'http://127.0.0.1/cb', 'challenge', '{posts:read}', 'http://127.0.0.1/mcp',
               now() + make_interval(secs => $5), CASE WHEN $6 THEN now() END)`,
      [h, clientId, workspaceId, userId, expiresInSeconds, used],
    );
    return h;
  }

  async function token(kind: 'access' | 'refresh', expiresInSeconds: number, used = false): Promise<string> {
    const h = hash();
    await t.dataSource.query(
      `INSERT INTO oauth_tokens (token_hash, grant_id, kind, expires_at, used_at)
       VALUES ($1, $2, $3, now() + make_interval(secs => $4), CASE WHEN $5 THEN now() END)`,
      [h, grantId, kind, expiresInSeconds, used],
    );
    return h;
  }

  const left = async (table: string, column: string): Promise<string[]> =>
    (await t.dataSource.query(`SELECT ${column} AS h FROM ${table}`)).map((r: { h: string }) => r.h).sort();

  it('is a periodic job of the worker, under the PeriodicJobs', () => {
    expect(t.app.get(PeriodicJobs).registered()).toContainEqual({ name: OAUTH_SERVER_PURGE_JOB, everyMs: 86_400_000 });
  });

  it('deletes expired access tokens, and codes and refresh tokens a day past their expiry', async () => {
    await runNow(); // whatever the start-up tick left
    // Gone: an access token just expired; a code and a refresh token (used or not) over a day past expiry.
    await token('access', -1);
    await code(-DAY - 60, true);
    await code(-DAY - 60, false);
    await token('refresh', -DAY - 60, true);
    await token('refresh', -DAY - 60, false);
    // Kept: what is still valid, and used codes and refresh tokens within the day after their expiry (a
    // replay of one of those still revokes its grant).
    const keptCodes = [await code(60, false), await code(-60, true), await code(-DAY + 600, false)];
    const keptTokens = [
      await token('access', 600),
      await token('refresh', 30 * DAY),
      await token('refresh', -60, true),
      await token('refresh', -DAY + 600, false),
    ];

    await expect(runNow()).resolves.toEqual({ codes: 2, tokens: 3 });
    expect(await left('oauth_authorization_codes', 'code_hash')).toEqual([...keptCodes].sort());
    expect(await left('oauth_tokens', 'token_hash')).toEqual([...keptTokens].sort());

    await expect(runNow()).resolves.toEqual({ codes: 0, tokens: 0 });
    const [job] = await t.dataSource.query(`SELECT runs, last_error FROM scheduled_jobs WHERE name = $1`, [
      OAUTH_SERVER_PURGE_JOB,
    ]);
    expect(job.last_error).toBeNull();
    expect(job.runs).toBeGreaterThanOrEqual(3);
  });

  it('finds them by their expiry (an index, not a read of the whole table)', async () => {
    const runner = t.dataSource.createQueryRunner();
    await runner.connect();
    const indexes = async (sql: string) =>
      JSON.stringify(await runner.query(`EXPLAIN (FORMAT JSON) ${sql}`)).match(/"Index Name":"[^"]+"/g) ?? [];
    await runner.startTransaction();
    try {
      // The tables are small here: without seq scans (in this transaction), whether an index serves the filter.
      await runner.query('SET LOCAL enable_seqscan = off');
      expect(
        await indexes(`SELECT token_hash FROM oauth_tokens WHERE expires_at < now() - interval '1 day'`),
      ).toContain('"Index Name":"IDX_oauth_tokens_expires"');
      expect(
        await indexes(`SELECT code_hash FROM oauth_authorization_codes WHERE expires_at < now() - interval '1 day'`),
      ).toContain('"Index Name":"IDX_oauth_authorization_codes_expires"');
    } finally {
      await runner.rollbackTransaction();
      await runner.release();
    }
  });
});
