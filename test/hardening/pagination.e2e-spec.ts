import { TestApp } from '../support/test-app';

/**
 * Every time-ordered list pages through rows created in the same millisecond (Postgres keeps
 * microseconds) and returns each row exactly once, whatever the page size.
 */
describe('keyset pagination at full timestamp precision', () => {
  let t: TestApp;
  let key: string;
  let workspaceId: string;
  const ROWS = 30;

  beforeAll(async () => {
    t = await TestApp.start();
    ({ key, workspaceId } = await t.createWorkspace());
  });
  afterAll(() => t.close());

  const sql = <T = any>(query: string, params: unknown[] = []): Promise<T[]> => t.dataSource.query(query, params);

  /** Puts every given row of `table` into one millisecond, one microsecond apart, in random order. */
  async function squeezeIntoOneMillisecond(table: string, column: string, ids: string[]): Promise<void> {
    const shuffled = [...ids].sort(() => Math.random() - 0.5);
    await sql(
      `UPDATE ${table} SET ${column} = '2026-06-01T12:00:00.000Z'::timestamptz + (u.n * interval '1 microsecond')
         FROM unnest($1::uuid[]) WITH ORDINALITY AS u(id, n) WHERE ${table}.id = u.id`,
      [shuffled],
    );
  }

  async function pageAll(path: string, limit: number): Promise<string[]> {
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let i = 0; i < 1000; i++) {
      const sep = path.includes('?') ? '&' : '?';
      const url: string = `${path}${sep}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const res: { status: number; body: any } = await t.request('GET', url, { key });
      expect(res.status).toBe(200);
      seen.push(...res.body.data.map((r: { id: string }) => r.id));
      cursor = res.body.nextCursor;
      if (!cursor) return seen;
    }
    throw new Error('pagination did not end');
  }

  function expectExactlyOnce(seen: string[], expected: string[]): void {
    expect(seen.length).toBe(expected.length);
    expect(new Set(seen).size).toBe(seen.length);
    expect([...seen].sort()).toEqual([...expected].sort());
  }

  async function insertChannel(i: number): Promise<string> {
    const [row] = await sql<{ id: string }>(
      `INSERT INTO channels (workspace_id, provider, external_id, name, handle, status, limits, connected_at)
       VALUES ($1, 'mastodon', $2, $3, $3, 'active', $4, now()) RETURNING id`,
      [
        workspaceId,
        `acct-${i}@page.test`,
        `page ${i}`,
        JSON.stringify({
          maxCharacters: 500,
          maxMedia: 4,
          maxImageBytes: 8_000_000,
          supportedMimeTypes: ['image/png'],
        }),
      ],
    );
    return row.id;
  }

  it('pages channels, posts (both sorts), events, webhooks, deliveries and api-keys exactly once', async () => {
    const channelIds = await Promise.all(Array.from({ length: ROWS }, (_, i) => insertChannel(i)));
    const channelId = channelIds[0];

    // Concurrent creation through the API, as a busy client would.
    const posts = await Promise.all(
      Array.from({ length: ROWS }, (_, i) =>
        t.request('POST', '/api/posts', { key, body: { content: `post ${i}`, channelIds: [channelId] } }),
      ),
    );
    expect(posts.every((r) => r.status === 201)).toBe(true);
    const postIds = posts.map((r) => r.body.id as string);

    const webhooks = await Promise.all(
      Array.from({ length: ROWS }, (_, i) =>
        t.request('POST', '/api/webhooks', { key, body: { url: `https://hooks.example.com/${i}` } }),
      ),
    );
    expect(webhooks.every((r) => r.status === 201)).toBe(true);
    const webhookIds = webhooks.map((r) => r.body.id as string);

    const keys = await Promise.all(
      Array.from({ length: ROWS }, (_, i) => t.request('POST', '/api/api-keys', { key, body: { name: `k${i}` } })),
    );
    expect(keys.every((r) => r.status === 201)).toBe(true);
    const keyIds = [
      ...keys.map((r) => r.body.id as string),
      ...(await sql<{ id: string }>('SELECT id FROM api_keys WHERE workspace_id = $1', [workspaceId]))
        .map((r) => r.id)
        .filter((id) => !keys.some((k) => k.body.id === id)),
    ];

    const events = await sql<{ id: string }>(
      `INSERT INTO events (workspace_id, type, data, dispatched_at)
       SELECT $1, 'post.published', $3::jsonb, now() FROM generate_series(1, $2) RETURNING id`,
      // A post as the API shows it: what a post.published event carries.
      [workspaceId, ROWS, JSON.stringify(posts[0].body)],
    );
    const eventIds = events.map((e) => e.id);

    const webhookId = webhookIds[0];
    const deliveries = await sql<{ id: string; event_id: string }>(
      `INSERT INTO webhook_deliveries (workspace_id, webhook_id, event_id, event_type, payload, status, attempts, next_attempt_at)
       SELECT $1, $2, e, 'post.published', '{}'::jsonb, 'succeeded', 1, now() FROM unnest($3::uuid[]) AS e
       RETURNING id, event_id`,
      [workspaceId, webhookId, eventIds],
    );
    const attempts = await sql<{ id: string }>(
      `INSERT INTO webhook_delivery_attempts
         (workspace_id, webhook_id, delivery_id, event_id, event_type, attempt, status_code, duration_ms, succeeded)
       SELECT $1, $2, d.id, d.event_id, 'post.published', 1, 200, 3, true
         FROM unnest($3::uuid[], $4::uuid[]) AS d(id, event_id) RETURNING id`,
      [workspaceId, webhookId, deliveries.map((d) => d.id), deliveries.map((d) => d.event_id)],
    );
    const attemptIds = attempts.map((a) => a.id);

    await squeezeIntoOneMillisecond('channels', 'created_at', channelIds);
    await squeezeIntoOneMillisecond('posts', 'created_at', postIds);
    await squeezeIntoOneMillisecond('posts', 'timeline_at', postIds);
    await squeezeIntoOneMillisecond('webhooks', 'created_at', webhookIds);
    await squeezeIntoOneMillisecond('api_keys', 'created_at', keyIds);
    await squeezeIntoOneMillisecond('events', 'created_at', eventIds);
    await squeezeIntoOneMillisecond('webhook_delivery_attempts', 'created_at', attemptIds);

    for (const limit of [1, 7]) {
      expectExactlyOnce(await pageAll('/api/channels', limit), channelIds);
      for (const sort of ['createdAt', '-createdAt', 'scheduledAt', '-scheduledAt']) {
        expectExactlyOnce(await pageAll(`/api/posts?sort=${sort}`, limit), postIds);
      }
      expectExactlyOnce(await pageAll('/api/events', limit), eventIds);
      expectExactlyOnce(await pageAll('/api/webhooks', limit), webhookIds);
      expectExactlyOnce(await pageAll(`/api/webhooks/${webhookId}/deliveries`, limit), attemptIds);
      expectExactlyOnce(await pageAll('/api/api-keys', limit), keyIds);
    }
  });

  it('answers cursors holding dates Postgres cannot store with 400, on every list', async () => {
    const [{ id: webhookId }] = await sql<{ id: string }>('SELECT id FROM webhooks WHERE workspace_id = $1 LIMIT 1', [
      workspaceId,
    ]);
    const lists = [
      '/api/channels',
      '/api/posts',
      '/api/posts?sort=scheduledAt',
      '/api/events',
      '/api/webhooks',
      `/api/webhooks/${webhookId}/deliveries`,
      '/api/api-keys',
    ];
    const uuid = '00000000-0000-4000-8000-000000000000';
    const dates = ['-005000-01-01T00:00:00.000Z', new Date(-8.64e15).toISOString(), '+275760-09-13T00:00:00.000Z'];
    for (const path of lists) {
      for (const date of dates) {
        const cursor = Buffer.from(JSON.stringify([date, uuid])).toString('base64url');
        const sep = path.includes('?') ? '&' : '?';
        const res = await t.request('GET', `${path}${sep}cursor=${cursor}`, { key });
        expect({ path, date, status: res.status, error: res.body?.error }).toEqual({
          path,
          date,
          status: 400,
          error: 'VALIDATION_ERROR',
        });
      }
    }
  });
});
