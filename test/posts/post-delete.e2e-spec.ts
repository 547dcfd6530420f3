import { FAST_PUBLISHING_ENV, waitFor } from '../support/publishing-env';
import { TestApp } from '../support/test-app';

/**
 * A post that reached a network keeps its record: DELETE answers 409 once any target (or any part of a
 * thread) is published, whatever the post's status; what never reached a network can still be deleted.
 */
describe('deleting posts keeps the published record', () => {
  let t: TestApp;
  let key: string;
  let a: string;
  let b: string;

  beforeAll(async () => {
    t = await TestApp.start({ env: FAST_PUBLISHING_ENV });
    ({ key } = await t.createWorkspace());
    a = await t.connectChannel(key, 'sandbox', { name: 'A' });
    b = await t.connectChannel(key, 'sandbox', { name: 'B' });
  });
  afterAll(() => t.close());

  async function settled(body: Record<string, unknown>): Promise<any> {
    const created = await t.request('POST', '/api/posts', { key, body: { publishNow: true, ...body } });
    expect(created.status).toBe(201);
    return waitFor(
      async () => (await t.request('GET', `/api/posts/${created.body.id}`, { key })).body,
      (p) => p.status === 'published' || p.status === 'failed',
    );
  }

  const remove = (id: string) => t.request('DELETE', `/api/posts/${id}`, { key });

  it('answers 409 for a published post and keeps it', async () => {
    const post = await settled({ content: 'On the network', channelIds: [a] });
    expect(post.status).toBe('published');
    const res = await remove(post.id);
    expect(res.status).toBe(409);
    expect(res.body).toEqual({
      error: 'CONFLICT',
      message:
        'This post was published (on 1 of its 1 channels): its record is kept. Deleting here never removes it from the networks.',
    });
    expect((await t.request('GET', `/api/posts/${post.id}`, { key })).body.status).toBe('published');
  });

  it('answers 409 for a failed post of which one channel published', async () => {
    const post = await settled({
      content: 'Half of it',
      channelIds: [a, b],
      targets: [{ channelId: b, content: 'Refused #fail-permanent' }],
    });
    expect(post.status).toBe('failed');
    expect(post.targets.map((x: { status: string }) => x.status).sort()).toEqual(['failed', 'published']);
    const res = await remove(post.id);
    expect(res.status).toBe(409);
    expect(res.body.message).toContain('on 1 of its 2 channels');
  });

  it('answers 409 for a failed thread whose first parts were published', async () => {
    const post = await settled({
      content: 'Part one',
      thread: [{ content: 'Part two #fail-permanent' }],
      channelIds: [a],
    });
    expect(post.status).toBe('failed');
    expect(post.targets[0].parts).toHaveLength(1);
    expect((await remove(post.id)).status).toBe(409);
  });

  it('deletes what never reached a network: a failed post, a draft, a scheduled post', async () => {
    const failed = await settled({ content: 'Never out #fail-permanent', channelIds: [a] });
    expect(failed.status).toBe('failed');
    expect((await remove(failed.id)).status).toBe(204);

    const draft = await t.request('POST', '/api/posts', { key, body: { content: 'Draft', channelIds: [a] } });
    expect((await remove(draft.body.id)).status).toBe(204);

    const scheduledAt = new Date(Date.now() + 3_600_000).toISOString();
    const scheduled = await t.request('POST', '/api/posts', {
      key,
      body: { content: 'Later', channelIds: [a], scheduledAt },
    });
    expect((await remove(scheduled.body.id)).status).toBe(204);
    expect((await t.request('GET', `/api/posts/${scheduled.body.id}`, { key })).status).toBe(404);
  });

  it('documents the 409 on DELETE /posts/{id}', async () => {
    const doc = (await t.request('GET', '/api/openapi.json')).body;
    const op = doc.paths['/posts/{id}'].delete;
    expect(op.description).toMatch(/published/);
    expect(op.responses['409'].description).toMatch(/published/);
  });
});
