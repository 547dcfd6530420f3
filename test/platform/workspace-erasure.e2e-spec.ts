import { MEDIA_STORAGE, MediaStorage } from '../../src/media/storage/media-storage.interface';
import { OrganizationsService } from '../../src/auth/organizations.service';
import { WorkspacesService } from '../../src/auth/workspaces.service';
import { WorkspaceErasureService } from '../../src/platform/workspace-erasure.service';
import { makePng } from '../factories/png.factory';
import { MediaClient, sha256 } from '../media/media-support';
import { testS3Env } from '../setup/s3-server';
import { FAST_PUBLISHING_ENV, waitFor } from '../support/publishing-env';
import { TestApp } from '../support/test-app';
import { WebhookReceiver } from '../support/webhook-receiver';

type Row = Record<string, unknown>;

/**
 * A workspace's usage, then its erasure (docs/adr/0052): keys 401 and the workspace 404 at once; in the
 * background every row of it goes, in every table (found generically: every column named workspace_id,
 * and every row hanging off those rows by a foreign key), its media bytes leave S3, and
 * `workspace.deleted` reaches the organization's subscribed webhooks.
 */
describe('workspace usage and erasure', () => {
  const s3Env = testS3Env();
  let t: TestApp;
  let receiver: WebhookReceiver;
  let org: { organizationId: string; workspaceId: string; key: string };
  let ws: string;
  let wsKey: string;
  let mediaId: string;
  let channelId: string;

  /** Whether the storage (the S3 server) still holds the object of a media item, or one of its variants. */
  const stored = async (id: string, variant?: string): Promise<boolean> => {
    const storage = t.app.get<MediaStorage>(MEDIA_STORAGE);
    try {
      for await (const chunk of storage.open(id, variant ? { variant } : {})) if (chunk) return true;
      return true;
    } catch {
      return false;
    }
  };
  const sql = <T = Row>(text: string, params: unknown[] = []) => t.dataSource.query<T[]>(text, params);

  /** Every row of the workspace: rows naming it in a workspace_id column, then, by foreign key, rows hanging off them. */
  async function rowsOfWorkspace(workspaceId: string): Promise<Map<string, Set<string>>> {
    const tables = await sql<{ table_name: string }>(
      `SELECT table_name FROM information_schema.columns
        WHERE table_schema = 'public' AND column_name = 'workspace_id'`,
    );
    const fks = await sql<{ child: string; child_column: string; parent: string; parent_column: string }>(
      `SELECT kcu.table_name AS child, kcu.column_name AS child_column,
              ccu.table_name AS parent, ccu.column_name AS parent_column
         FROM information_schema.table_constraints tc
         JOIN information_schema.key_column_usage kcu ON kcu.constraint_name = tc.constraint_name
         JOIN information_schema.constraint_column_usage ccu ON ccu.constraint_name = tc.constraint_name
        WHERE tc.constraint_type = 'FOREIGN KEY' AND tc.table_schema = 'public'`,
    );
    const rows = new Map<string, Row[]>();
    for (const { table_name } of tables) {
      rows.set(table_name, await sql(`SELECT * FROM "${table_name}" WHERE workspace_id = $1`, [workspaceId]));
    }
    // Rows hanging off collected rows, until nothing new is found.
    for (let grew = true; grew;) {
      grew = false;
      for (const fk of fks) {
        const parents = rows.get(fk.parent) ?? [];
        const values = [...new Set(parents.map((r) => r[fk.parent_column]).filter((v) => v != null))];
        if (values.length === 0) continue;
        const found = await sql(`SELECT * FROM "${fk.child}" WHERE "${fk.child_column}"::text = ANY($1::text[])`, [
          values.map(String),
        ]);
        const known = rows.get(fk.child) ?? [];
        const seen = new Set(known.map((r) => JSON.stringify(r)));
        const fresh = found.filter((r) => !seen.has(JSON.stringify(r)));
        if (fresh.length) {
          rows.set(fk.child, [...known, ...fresh]);
          grew = true;
        }
      }
    }
    return new Map([...rows].map(([table, list]) => [table, new Set(list.map((r) => JSON.stringify(r)))]));
  }

  beforeAll(async () => {
    receiver = new WebhookReceiver();
    await receiver.start();
    t = await TestApp.start({ env: { ...s3Env, ...FAST_PUBLISHING_ENV } });
    org = await t.app.get(OrganizationsService).create('Erasing platform');
    const hook = await t.request('POST', '/api/webhooks', {
      key: org.key,
      body: { url: receiver.url('/org'), events: ['workspace.deleted'] },
    });
    expect(hook.status).toBe(201);
    ws = (await t.request('POST', '/api/workspaces', { key: org.key, body: { name: 'Customer', externalId: 'c-9' } }))
      .body.id;
    const key = await t.request('POST', '/api/api-keys', {
      key: org.key,
      headers: { 'x-workspace-id': ws },
      body: { name: 'customer' },
    });
    wsKey = key.body.key;
  });
  afterAll(async () => {
    await t.close();
    await receiver.stop();
  });

  it('counts posts created, targets published per network and media bytes stored', async () => {
    channelId = await t.connectChannel(wsKey, 'sandbox', { name: 'Customer sandbox' });
    const png = makePng(32, 24);
    const media = new MediaClient(t, wsKey);
    const init = await media.initialize({
      filename: 'a.png',
      mimeType: 'image/png',
      size: png.length,
      sha256: sha256(png),
    });
    mediaId = init.body.id;
    expect((await media.chunk(mediaId, 0, png)).status).toBe(200);
    expect((await media.finalize(mediaId)).body.status).toBe('ready');
    const post = await t.request('POST', '/api/posts', {
      key: wsKey,
      body: { content: 'Hello from a customer', channelIds: [channelId], mediaIds: [mediaId], publishNow: true },
    });
    expect(post.status).toBe(201);
    await waitFor(
      async () => (await t.request('GET', `/api/posts/${post.body.id}`, { key: wsKey })).body.status,
      (s) => s === 'published',
    );
    // A draft made by the organization's key acting in the workspace, with an Idempotency-Key.
    const draft = await t.request('POST', '/api/posts', {
      key: org.key,
      headers: { 'x-workspace-id': ws, 'idempotency-key': 'draft-1' },
      body: { content: 'A draft', channelIds: [channelId] },
    });
    expect(draft.status).toBe(201);
    // A webhook of the workspace, with a delivery of post.published behind it.
    expect(
      (
        await t.request('POST', '/api/webhooks', {
          key: wsKey,
          body: { url: receiver.url('/ws'), events: ['post.published'] },
        })
      ).status,
    ).toBe(201);

    const usage = await t.request('GET', `/api/workspaces/${ws}/usage`, { key: org.key });
    expect(usage.status).toBe(200);
    expect(usage.body).toEqual({
      workspaceId: ws,
      from: expect.any(String),
      to: expect.any(String),
      postsCreated: 2,
      targetsPublished: 1,
      targetsFailed: 0,
      byNetwork: { sandbox: { published: 1, failed: 0 } },
      mediaBytes: expect.any(Number),
    });
    expect(usage.body.mediaBytes).toBeGreaterThanOrEqual(png.length);
    expect(Date.parse(usage.body.to) - Date.parse(usage.body.from)).toBe(30 * 86_400_000);
    const past = await t.request(
      'GET',
      `/api/workspaces/${ws}/usage?from=2020-01-01T00:00:00Z&to=2020-02-01T00:00:00Z`,
      {
        key: org.key,
      },
    );
    expect(past.body).toMatchObject({
      postsCreated: 0,
      targetsPublished: 0,
      byNetwork: {},
      from: '2020-01-01T00:00:00.000Z',
    });
    for (const query of [
      'from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z',
      'from=2020-01-01T00:00:00Z&to=2026-01-01T00:00:00Z',
      'from=yesterday',
    ]) {
      const bad = await t.request('GET', `/api/workspaces/${ws}/usage?${query}`, { key: org.key });
      expect(bad.status).toBe(400);
      expect(bad.body.error).toBe('VALIDATION_ERROR');
    }
  });

  it('erases the workspace: 404 and keys 401 at once, then no row, no media object, and workspace.deleted', async () => {
    const before = await rowsOfWorkspace(ws);
    for (const table of ['posts', 'post_targets', 'channels', 'media', 'api_keys', 'webhooks', 'events']) {
      expect(before.get(table)?.size ?? 0).toBeGreaterThan(0);
    }
    expect(await stored(mediaId)).toBe(true);
    const variants = await sql<{ variant: string }>('SELECT variant FROM media_variants WHERE media_id = $1', [
      mediaId,
    ]);
    const [{ account }] = await sql<{ account: string }>('SELECT external_id AS account FROM channels WHERE id = $1', [
      channelId,
    ]);
    expect((await sql('SELECT 1 FROM sandbox_posts WHERE account_id = $1', [account])).length).toBeGreaterThan(0);
    expect((await sql(`SELECT 1 FROM idempotency_keys WHERE key LIKE $1`, [`ws:${ws}:%`])).length).toBe(1);

    const erased = await t.request('DELETE', `/api/workspaces/${ws}`, { key: org.key });
    expect(erased.status).toBe(202);
    // At once: its key is refused, the workspace is gone from the API.
    const refused = await t.request('GET', '/api/channels', { key: wsKey });
    expect(refused.status).toBe(401);
    expect((await t.request('GET', `/api/workspaces/${ws}`, { key: org.key })).status).toBe(404);
    expect((await t.request('GET', '/api/channels', { key: org.key, headers: { 'x-workspace-id': ws } })).status).toBe(
      404,
    );
    expect((await t.request('DELETE', `/api/workspaces/${ws}`, { key: org.key })).status).toBe(404);
    const listed = await t.request('GET', '/api/workspaces', { key: org.key });
    expect(listed.body.data.map((w: { id: string }) => w.id)).toEqual([org.workspaceId]);

    await waitFor(
      () => sql('SELECT 1 FROM workspaces WHERE id = $1', [ws]),
      (rows) => rows.length === 0,
      30_000,
    );
    // Every column named workspace_id, in every table (those added later included): nothing.
    const columns = await sql<{ table_name: string }>(
      `SELECT table_name FROM information_schema.columns WHERE table_schema = 'public' AND column_name = 'workspace_id'`,
    );
    expect(columns.length).toBeGreaterThan(10);
    for (const { table_name } of columns) {
      expect([table_name, (await sql(`SELECT 1 FROM "${table_name}" WHERE workspace_id = $1`, [ws])).length]).toEqual([
        table_name,
        0,
      ]);
    }
    // Every row that hung off the workspace's rows (targets, variants, idempotency keys of its keys, ...): gone.
    for (const [table, rows] of before) {
      const now = new Set((await sql(`SELECT * FROM "${table}"`)).map((r) => JSON.stringify(r)));
      expect([table, [...rows].filter((r) => now.has(r))]).toEqual([table, []]);
    }
    // Nothing anywhere names it, but the workspace.deleted event (and its delivery) that says it is gone.
    const tables = await sql<{ table_name: string }>(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`,
    );
    for (const { table_name } of tables) {
      const hits = await sql(`SELECT * FROM "${table_name}" x WHERE row_to_json(x)::text LIKE $1`, [`%${ws}%`]);
      // The event saying it is gone, in the organization's other workspace, and that event's delivery records.
      const other = hits.filter((r) => r.type !== 'workspace.deleted' && r.event_type !== 'workspace.deleted');
      expect([table_name, other]).toEqual([table_name, []]);
    }
    // The acting requests' stored answers and the network's side of the channel (the sandbox's revocation).
    expect(await sql(`SELECT 1 FROM idempotency_keys WHERE key LIKE $1`, [`ws:${ws}:%`])).toEqual([]);
    expect(await sql('SELECT 1 FROM sandbox_posts WHERE account_id = $1', [account])).toEqual([]);
    // And the bytes: no object of its media is left in the bucket.
    expect(await stored(mediaId)).toBe(false);
    for (const { variant } of variants) expect([variant, await stored(mediaId, variant)]).toEqual([variant, false]);

    const [delivery] = await receiver.waitForCount('/org', 1, 20_000);
    const envelope = JSON.parse(delivery.body);
    expect(envelope).toMatchObject({ type: 'workspace.deleted', data: { workspaceId: ws } });
    expect(delivery.headers['webhook-signature']).toEqual(expect.stringMatching(/^v1,/));
    const events = await t.request('GET', '/api/events', { key: org.key });
    expect(events.body.data.map((e: { type: string }) => e.type)).toContain('workspace.deleted');
  }, 60_000);

  it('resumes an erasure the database holds but the queue lost (a crash after the 202): the reconciler finishes it', async () => {
    const made = await t.request('POST', '/api/workspaces', { key: org.key, body: { name: 'Crashed customer' } });
    const acting = { key: org.key, headers: { 'x-workspace-id': made.body.id } };
    expect(
      (
        await t.request('POST', '/api/channels', {
          ...acting,
          body: { provider: 'sandbox', credentials: { name: 'Crashed' } },
        })
      ).status,
    ).toBe(201);
    // The first step alone, as if the process died before it enqueued the job.
    await t.app.get(WorkspacesService).markErased(org.organizationId, made.body.id);
    expect((await t.request('GET', `/api/workspaces/${made.body.id}`, { key: org.key })).status).toBe(404);
    expect((await sql('SELECT 1 FROM channels WHERE workspace_id = $1', [made.body.id])).length).toBe(1);
    // What the periodic reconciler runs: every workspace still marked goes back on the queue.
    expect(await t.app.get(WorkspaceErasureService).enqueueUnfinished()).toBe(1);
    await waitFor(
      () => sql('SELECT 1 FROM workspaces WHERE id = $1', [made.body.id]),
      (rows) => rows.length === 0,
      30_000,
    );
    expect(await sql('SELECT 1 FROM channels WHERE workspace_id = $1', [made.body.id])).toEqual([]);
  }, 60_000);
});
