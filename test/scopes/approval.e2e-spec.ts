import { setTimeout as sleep } from 'node:timers/promises';
import { FAST_PUBLISHING_ENV, waitFor } from '../support/publishing-env';
import { TestApp } from '../support/test-app';
import { WebhookReceiver } from '../support/webhook-receiver';

/** The approval step (docs/guide.md, "Key scopes and approval"): posts that wait for a person. */
describe('post approval', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;
  let ws: { key: string; workspaceId: string; apiKeyId: string };
  let channel: string;
  let drafter: string;
  let approver: { key: string; id: string };

  const keyWith = async (scopes: string[]) => {
    const res = await t.request('POST', '/api/api-keys', { key: ws.key, body: { name: 'scoped', scopes } });
    expect(res.status).toBe(201);
    return { key: res.body.key as string, id: res.body.id as string };
  };
  const getPost = async (id: string) => (await t.request('GET', `/api/posts/${id}`, { key: ws.key })).body;
  const timeline = async () =>
    (await t.request('GET', `/api/channels/${channel}/sandbox/posts`, { key: ws.key })).body.data as Array<{
      content: string;
    }>;
  const published = (content: string) => timeline().then((posts) => posts.filter((p) => p.content === content));
  const create = (key: string, body: Record<string, unknown>) =>
    t.request('POST', '/api/posts', { key, body: { channelIds: [channel], ...body } });
  const approve = (id: string, key = approver.key, headers: Record<string, string> = {}) =>
    t.request('POST', `/api/posts/${id}/approve`, { key, headers });
  const reject = (id: string, reason: string, key = approver.key) =>
    t.request('POST', `/api/posts/${id}/reject`, { key, body: { reason } });
  const settled = (id: string) =>
    waitFor(
      () => getPost(id),
      (p) => p.status === 'published' || p.status === 'failed',
    );

  beforeAll(async () => {
    receiver = new WebhookReceiver();
    await receiver.start();
    t = await TestApp.start({ env: FAST_PUBLISHING_ENV });
    ws = await t.createWorkspace();
    channel = await t.connectChannel(ws.key, 'sandbox', { name: 'Approvals' });
    drafter = (await keyWith(['posts:read', 'posts:write'])).key;
    approver = await keyWith(['posts:read', 'posts:approve']);
    const hook = await t.request('POST', '/api/webhooks', { key: ws.key, body: { url: receiver.url('/events') } });
    expect(hook.status).toBe(201);
  });
  afterAll(async () => {
    await t?.close();
    await receiver.stop();
  });

  it("holds a draft-only key's publish-now post, publishes it exactly once when approved, and says who approved", async () => {
    const created = await create(drafter, { content: 'needs a yes', publishNow: true });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ status: 'pending_approval', scheduledAt: null, approval: null });
    expect(created.body.targets[0].status).toBe('pending');
    await sleep(1500); // two reconciler rounds: nothing goes out meanwhile
    expect(await published('needs a yes')).toEqual([]);
    expect((await getPost(created.body.id)).status).toBe('pending_approval');

    const refused = await approve(created.body.id, drafter);
    expect(refused.status).toBe(403);
    expect(refused.body.message).toContain('posts:approve');

    const approved = await approve(created.body.id);
    expect(approved.status).toBe(200);
    expect(approved.body.status).toBe('publishing');
    expect(approved.body.approval).toEqual({
      at: expect.any(String),
      by: { type: 'api_key', id: approver.id },
      latenessSeconds: null,
    });
    expect((await settled(created.body.id)).status).toBe('published');
    const again = await approve(created.body.id);
    expect(again.status).toBe(409);
    await sleep(1000);
    expect(await published('needs a yes')).toHaveLength(1);
  });

  it('rejects a pending post back to draft with its reason, time and rejecter', async () => {
    const at = new Date(Date.now() + 3_600_000).toISOString();
    const created = await create(drafter, { content: 'not like this', scheduledAt: at });
    expect(created.body).toMatchObject({ status: 'pending_approval', scheduledAt: at });
    const rejected = await reject(created.body.id, 'Wrong tone');
    expect(rejected.status).toBe(200);
    expect(rejected.body).toMatchObject({
      status: 'draft',
      scheduledAt: null,
      rejection: { reason: 'Wrong tone', at: expect.any(String), by: { type: 'api_key', id: approver.id } },
    });
    expect((await reject(created.body.id, 'again')).status).toBe(409);
    expect((await approve(created.body.id)).status).toBe(409);
    const empty = await t.request('POST', `/api/posts/${created.body.id}/reject`, {
      key: approver.key,
      body: { reason: '' },
    });
    expect(empty.status).toBe(400);
  });

  it('schedules an approved post at its time, and publishes at once one whose time passed, recording the lateness', async () => {
    const later = new Date(Date.now() + 3_600_000).toISOString();
    const onTime = await create(drafter, { content: 'on time', scheduledAt: later });
    const ok = await approve(onTime.body.id);
    expect(ok.body).toMatchObject({ status: 'scheduled', scheduledAt: later, approval: { latenessSeconds: null } });

    const soon = new Date(Date.now() + 1_500).toISOString();
    const late = await create(drafter, { content: 'approved late', scheduledAt: soon });
    expect(late.body.status).toBe('pending_approval');
    await sleep(3_000);
    expect(await published('approved late')).toEqual([]);
    const approved = await approve(late.body.id);
    expect(approved.body.status).toBe('publishing');
    expect(approved.body.approval.latenessSeconds).toBeGreaterThanOrEqual(1);
    expect((await settled(late.body.id)).status).toBe('published');
    expect(await published('approved late')).toHaveLength(1);
  });

  it('holds a queued post in its slot while it waits, and schedules it there once approved', async () => {
    const slots = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'].map((day) => ({ day, time: '12:00' }));
    const schedule = await t.request('PUT', `/api/channels/${channel}/schedule`, {
      key: ws.key,
      body: { timezone: 'UTC', slots },
    });
    expect(schedule.status).toBe(200);
    try {
      const queued = await create(drafter, { content: 'queued for review', queue: true });
      expect(queued.body).toMatchObject({ status: 'pending_approval', queued: true });
      expect(queued.body.scheduledAt).toMatch(/T12:00:00\.000Z$/);
      const free = await t.request('GET', `/api/channels/${channel}/slots?limit=1`, { key: ws.key });
      expect(free.body.data[0].at).not.toBe(queued.body.scheduledAt);
      const approved = await approve(queued.body.id);
      expect(approved.body).toMatchObject({ status: 'scheduled', queued: true, scheduledAt: queued.body.scheduledAt });
    } finally {
      await t.request('PUT', `/api/channels/${channel}/schedule`, {
        key: ws.key,
        body: { timezone: 'UTC', slots: [] },
      });
    }
  });

  it('keeps an edited pending post pending, and sends an approved post edited by a key without posts:publish back', async () => {
    const later = new Date(Date.now() + 3_600_000).toISOString();
    const pending = await create(drafter, { content: 'v1', scheduledAt: later });
    const edited = await t.request('PUT', `/api/posts/${pending.body.id}`, {
      key: ws.key,
      body: { content: 'v2', channelIds: [channel], scheduledAt: later },
    });
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({ status: 'pending_approval', content: 'v2' });

    expect((await approve(pending.body.id)).body.status).toBe('scheduled');
    const changed = await t.request('PUT', `/api/posts/${pending.body.id}`, {
      key: drafter,
      body: { content: 'v3', channelIds: [channel], scheduledAt: later },
    });
    expect(changed.body).toMatchObject({ status: 'pending_approval', content: 'v3' });
    expect(changed.body.targets[0].status).toBe('pending');

    const toDraft = await t.request('PUT', `/api/posts/${pending.body.id}`, {
      key: drafter,
      body: { content: 'v4', channelIds: [channel] },
    });
    expect(toDraft.body.status).toBe('draft');
    // A full key's edit of its own post goes out directly, while the workspace does not require approval.
    const direct = await t.request('PUT', `/api/posts/${pending.body.id}`, {
      key: ws.key,
      body: { content: 'v5', channelIds: [channel], scheduledAt: later },
    });
    expect(direct.body.status).toBe('scheduled');
  });

  it("holds even a full key's posts while the workspace requires approval", async () => {
    expect((await t.request('GET', '/api/workspace', { key: ws.key })).body).toMatchObject({
      id: ws.workspaceId,
      approvalRequired: false,
    });
    expect(
      (await t.request('PATCH', '/api/workspace', { key: drafter, body: { approvalRequired: true } })).status,
    ).toBe(403);
    const on = await t.request('PATCH', '/api/workspace', { key: ws.key, body: { approvalRequired: true } });
    expect(on.status).toBe(200);
    expect(on.body.approvalRequired).toBe(true);
    try {
      const held = await create(ws.key, { content: 'full but held', publishNow: true });
      expect(held.body.status).toBe('pending_approval');
      const draft = await create(ws.key, { content: 'just a draft' });
      expect(draft.body.status).toBe('draft');
      expect((await approve(held.body.id, ws.key)).body.status).toBe('publishing');
      expect((await settled(held.body.id)).status).toBe('published');
    } finally {
      await t.request('PATCH', '/api/workspace', { key: ws.key, body: { approvalRequired: false } });
    }
    expect(
      (await create(ws.key, { content: 'free again', scheduledAt: new Date(Date.now() + 3_600_000).toISOString() }))
        .body.status,
    ).toBe('scheduled');
  });

  it('lets the database decide between a concurrent approval and rejection: one wins, the other is 409', async () => {
    for (let round = 0; round < 3; round++) {
      const created = await create(drafter, {
        content: `race ${round}`,
        scheduledAt: new Date(Date.now() + 3_600_000).toISOString(),
      });
      const [a, r, a2] = await Promise.all([
        approve(created.body.id),
        reject(created.body.id, 'race'),
        approve(created.body.id),
      ]);
      const statuses = [a.status, r.status, a2.status].sort();
      expect(statuses).toEqual([200, 409, 409]);
      const post = await getPost(created.body.id);
      expect(post.status).toBe(r.status === 200 ? 'draft' : 'scheduled');
    }
  });

  it('answers a repeated approval with the same Idempotency-Key from its record', async () => {
    const created = await create(drafter, {
      content: 'once',
      scheduledAt: new Date(Date.now() + 3_600_000).toISOString(),
    });
    const first = await approve(created.body.id, approver.key, { 'idempotency-key': 'approve-once' });
    const second = await approve(created.body.id, approver.key, { 'idempotency-key': 'approve-once' });
    expect(first.status).toBe(200);
    expect(second.status).toBe(200);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.body).toEqual(first.body);
  });

  it('records post.approval_requested, post.approved and post.rejected, in GET /events and at webhooks', async () => {
    const a = await create(drafter, {
      content: 'evented yes',
      scheduledAt: new Date(Date.now() + 3_600_000).toISOString(),
    });
    const b = await create(drafter, {
      content: 'evented no',
      scheduledAt: new Date(Date.now() + 3_600_000).toISOString(),
    });
    await approve(a.body.id);
    await reject(b.body.id, 'no');
    const ofType = async (type: string) =>
      (await t.request('GET', `/api/events?type=${type}&limit=100`, { key: ws.key })).body.data.map(
        (e: { data: { id: string } }) => e.data.id,
      );
    expect(await ofType('post.approval_requested')).toEqual(expect.arrayContaining([a.body.id, b.body.id]));
    expect(await ofType('post.approved')).toContain(a.body.id);
    expect(await ofType('post.rejected')).toContain(b.body.id);
    const events = await waitFor(
      async () => receiver.events('/events'),
      (list) => list.some((e) => e.type === 'post.rejected' && e.data.id === b.body.id),
      15_000,
    );
    const seen = (type: string, id: string) => events.some((e) => e.type === type && e.data.id === id);
    expect(seen('post.approval_requested', a.body.id)).toBe(true);
    expect(seen('post.approved', a.body.id)).toBe(true);
    expect(events.find((e) => e.type === 'post.rejected' && e.data.id === b.body.id)!.data.rejection.reason).toBe('no');
  });
});
