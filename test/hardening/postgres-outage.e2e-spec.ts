import { setTimeout as sleep } from 'node:timers/promises';
import { generateApiKey } from '../../src/auth/api-key.format';
import { waitFor } from '../support/publishing-env';
import { TcpProxy } from '../support/tcp-proxy';
import { TestApp } from '../support/test-app';
import { TEST_PG_BASE } from '../setup/test-env';

/**
 * PostgreSQL becomes unreachable behind a TCP proxy: first refusing connections, then accepting them
 * and never answering (new connections, then the pool's open ones). Every request is answered within
 * its bounds (DATABASE_*_TIMEOUT_MS) with 503 SERVICE_UNAVAILABLE and Retry-After, readiness reports
 * the database down, and the service recovers by itself once Postgres is back.
 */
describe('requests while PostgreSQL is unreachable', () => {
  let proxy: TcpProxy;
  let t: TestApp;
  let key: string;
  let channelId: string;

  const BOUNDS = {
    DATABASE_CONNECT_TIMEOUT_MS: '1000',
    DATABASE_STATEMENT_TIMEOUT_MS: '1000',
    DATABASE_QUERY_TIMEOUT_MS: '2000',
    DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS: '3000',
    DATABASE_PROBE_TIMEOUT_MS: '500',
    DATABASE_POOL_SIZE: '4',
  };
  /** The longest any answer may take during an outage: the query deadline plus a connect, and slack. */
  const ANSWER_WITHIN_MS = 4_500;

  beforeAll(async () => {
    const pg = new URL(TEST_PG_BASE);
    proxy = new TcpProxy(pg.hostname, Number(pg.port || 5432));
    await proxy.start();
    t = await TestApp.start({ role: 'api', env: BOUNDS, databaseUrl: (url) => proxy.through(url) });
    ({ key } = await t.createWorkspace());
    channelId = await t.connectChannel(key, 'sandbox', { name: 'outage' });
  });
  afterAll(async () => {
    await proxy.restore();
    await t?.close();
    await proxy.stop();
  });

  interface Timed {
    what: string;
    status: number;
    body: any;
    retryAfter: string | null;
    ms: number;
  }

  async function timed(method: string, path: string, body?: unknown): Promise<Timed> {
    const started = Date.now();
    const res = await fetch(`${t.baseUrl}${path}`, {
      method,
      headers: { 'x-api-key': key, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
      signal: AbortSignal.timeout(15_000),
    });
    const text = await res.text();
    return {
      what: `${method} ${path}`,
      status: res.status,
      body: text ? JSON.parse(text) : undefined,
      retryAfter: res.headers.get('retry-after'),
      ms: Date.now() - started,
    };
  }

  /** The same mix of reads and writes, several at once (more than the pool holds). */
  const traffic = () =>
    Promise.all([
      timed('GET', '/api/posts'),
      timed('POST', '/api/posts', { content: 'during the outage', channelIds: [channelId] }),
      timed('GET', '/api/channels'),
      timed('GET', `/api/channels/${channelId}`),
      timed('GET', '/api/webhooks'),
      timed('GET', '/api/events'),
      timed('POST', '/api/api-keys', { name: 'outage' }),
      timed('GET', '/api/posts?status=draft'),
    ]);

  const expectUnavailable = (answers: Timed[]) => {
    for (const a of answers) {
      expect({ what: a.what, status: a.status, error: a.body?.error }).toEqual({
        what: a.what,
        status: 503,
        error: 'SERVICE_UNAVAILABLE',
      });
      expect(Object.keys(a.body).sort()).toEqual(['error', 'message']);
      expect(Number(a.retryAfter)).toBeGreaterThan(0);
      expect({ what: a.what, bounded: a.ms < ANSWER_WITHIN_MS }).toEqual({ what: a.what, bounded: true });
    }
  };

  const expectReadinessDown = async () => {
    const started = Date.now();
    const ready = await fetch(`${t.baseUrl}/api/health/ready`, { signal: AbortSignal.timeout(15_000) });
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(ready.status).toBe(503);
    expect(((await ready.json()) as { checks: { database: string } }).checks.database).toBe('down');
  };

  const expectRecovery = async () => {
    await waitFor(
      () => timed('GET', '/api/posts'),
      (a) => a.status === 200,
      15_000,
      250,
    );
    const answers = await traffic();
    expect(answers.map((a) => [a.what, a.status])).toEqual(
      answers.map((a) => [a.what, a.what.startsWith('POST') ? 201 : 200]),
    );
    expect((await fetch(`${t.baseUrl}/api/health/ready`)).status).toBe(200);
  };

  it('bounds every session: statement_timeout and idle_in_transaction_session_timeout are set', async () => {
    const [row] = await t.dataSource.query(
      `SELECT current_setting('statement_timeout') AS statement, current_setting('idle_in_transaction_session_timeout') AS idle`,
    );
    expect(row).toEqual({ statement: '1s', idle: '3s' });
    const started = Date.now();
    await expect(t.dataSource.query('SELECT pg_sleep(5)')).rejects.toMatchObject({ driverError: { code: '57014' } });
    expect(Date.now() - started).toBeLessThan(2_500);
  });

  it('answers 503 with Retry-After at once while connections are refused, and recovers by itself', async () => {
    const other = await t.createWorkspace(); // a key no request has used yet: its lookup needs the database
    await proxy.cut();
    expectUnavailable(await traffic());
    const [unknownKey, newKey] = await Promise.all([
      fetch(`${t.baseUrl}/api/posts`, { headers: { 'x-api-key': generateApiKey() } }), // well-formed, unknown
      fetch(`${t.baseUrl}/api/posts`, { headers: { 'x-api-key': other.key } }),
    ]);
    expect([unknownKey.status, newKey.status]).toEqual([503, 503]);
    await expectReadinessDown();
    const health = await fetch(`${t.baseUrl}/api/health`);
    expect(health.status).toBe(503);
    await proxy.restore();
    await expectRecovery();
  });

  it('answers 503 within the connect bound while new connections get no answer, and recovers', async () => {
    await proxy.cut(); // the pool loses its connections...
    await sleep(200);
    await proxy.blackhole(); // ...and every new one is accepted and left silent
    expectUnavailable(await traffic());
    await expectReadinessDown();
    await proxy.restore();
    await expectRecovery();
  });

  it('answers 503 within the query bound while open connections stop answering, and recovers', async () => {
    await expectRecovery(); // the pool holds open connections through the proxy
    await proxy.blackhole();
    expectUnavailable(await traffic());
    await expectReadinessDown();
    // Still bounded a while later: connections dropped for silence are replaced by new silent ones.
    expectUnavailable(await traffic());
    await proxy.restore();
    await expectRecovery();
  });
});

/**
 * The same outage with the default bounds (a 20 s query deadline): a blackholed database (connections
 * accepted and never answered, as when its packets are dropped) answers 503 within 5 s from the first
 * request, because a query waiting longer than DATABASE_PROBE_TIMEOUT_MS (2 s) starts a check on a new
 * connection, and a failed check drops the pool's connections and fails connects at once.
 */
describe('requests while PostgreSQL is blackholed, with the default bounds', () => {
  let proxy: TcpProxy;
  let t: TestApp;
  let key: string;

  beforeAll(async () => {
    const pg = new URL(TEST_PG_BASE);
    proxy = new TcpProxy(pg.hostname, Number(pg.port || 5432));
    await proxy.start();
    t = await TestApp.start({
      role: 'api',
      env: { DATABASE_POOL_SIZE: '4' },
      databaseUrl: (url) => proxy.through(url),
    });
    ({ key } = await t.createWorkspace());
  });
  afterAll(async () => {
    await proxy.restore();
    await t?.close();
    await proxy.stop();
  });

  const timedGet = async (path: string) => {
    const started = Date.now();
    const res = await fetch(`${t.baseUrl}${path}`, {
      headers: { 'x-api-key': key },
      signal: AbortSignal.timeout(30_000),
    });
    const body = (await res.json()) as { error?: string; checks?: { database: string } };
    return { path, status: res.status, body, ms: Date.now() - started };
  };
  const paths = ['/api/posts', '/api/channels', '/api/webhooks', '/api/events', '/api/api-keys'];

  it('answers 503 within 5 s from the first request, later ones sooner, readiness red; recovers', async () => {
    // Open connections in the pool first, so the first requests wait on connections that go silent.
    expect((await Promise.all(paths.map(timedGet))).map((a) => a.status)).toEqual(paths.map(() => 200));
    await proxy.blackhole();

    const first = await Promise.all(paths.map(timedGet));
    for (const a of first) {
      expect({ path: a.path, status: a.status, error: a.body.error }).toEqual({
        path: a.path,
        status: 503,
        error: 'SERVICE_UNAVAILABLE',
      });
      expect({ path: a.path, within5s: a.ms < 5_000 }).toEqual({ path: a.path, within5s: true });
    }
    const later = await Promise.all(paths.map(timedGet));
    for (const a of later) {
      expect([a.status, a.body.error]).toEqual([503, 'SERVICE_UNAVAILABLE']);
      expect({ path: a.path, within5s: a.ms < 5_000 }).toEqual({ path: a.path, within5s: true });
    }
    const ready = await timedGet('/api/health/ready');
    expect([ready.status, ready.body.checks?.database]).toEqual([503, 'down']);
    expect(ready.ms).toBeLessThan(3_000);

    await proxy.restore();
    await waitFor(
      () => timedGet('/api/posts'),
      (a) => a.status === 200,
      15_000,
      250,
    );
    expect((await timedGet('/api/health/ready')).status).toBe(200);
  });
});
