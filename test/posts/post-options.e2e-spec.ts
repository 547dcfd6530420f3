/**
 * Per-network options: `targets[i].options` on POST /posts, PUT /posts/{id} and POST /posts/validate,
 * checked against the JSON Schema the provider lists as `optionsSchema` in GET /providers, stored,
 * shown on the post's targets and handed to the network (the sandbox's timeline shows them).
 */
import { MastodonFake } from '../fakes/mastodon.fake';
import { FAST_PUBLISHING_ENV, waitFor } from '../support/publishing-env';
import { TestApp } from '../support/test-app';

describe('per-network options', () => {
  let t: TestApp;
  let mastodon: MastodonFake;
  let key: string;
  let masto: string;
  let sandbox: string;

  const post = (body: Record<string, unknown>) => t.request('POST', '/api/posts', { key, body });
  const put = (id: string, body: Record<string, unknown>) => t.request('PUT', `/api/posts/${id}`, { key, body });
  const validate = (body: Record<string, unknown>) => t.request('POST', '/api/posts/validate', { key, body });
  const settled = (id: string) =>
    waitFor(
      async () => (await t.request('GET', `/api/posts/${id}`, { key })).body,
      (p) => p.status === 'published' || p.status === 'failed',
    );

  beforeAll(async () => {
    mastodon = new MastodonFake({ tokens: ['tok'], mediaPollsBeforeReady: 0 });
    await mastodon.start();
    t = await TestApp.start({ env: { ...FAST_PUBLISHING_ENV } });
    key = (await t.createWorkspace()).key;
    masto = await t.connectChannel(key, 'mastodon', { instanceUrl: mastodon.baseUrl, accessToken: 'tok' });
    sandbox = await t.connectChannel(key, 'sandbox', { name: 'Options' });
  });
  afterAll(async () => {
    await t?.close();
    await mastodon.stop();
  });

  it('lists each network’s options schema in GET /providers (null when it takes none)', async () => {
    const res = await t.request('GET', '/api/providers', { key });
    expect(res.status).toBe(200);
    const byId = new Map(res.body.data.map((p: { id: string }) => [p.id, p]));
    expect((byId.get('sandbox') as { optionsSchema: unknown }).optionsSchema).toEqual({
      type: 'object',
      additionalProperties: false,
      properties: {
        visibility: expect.objectContaining({ type: 'string', enum: ['public', 'unlisted', 'private'] }),
        contentWarning: expect.objectContaining({ type: 'string', maxLength: 200 }),
      },
    });
    expect((byId.get('mastodon') as { optionsSchema: unknown }).optionsSchema).toBeNull();
  });

  it('publishes with the options: shown on the target, received by the network', async () => {
    const created = await post({
      content: 'The finale, discussed',
      channelIds: [masto, sandbox],
      targets: [{ channelId: sandbox, options: { visibility: 'unlisted', contentWarning: 'Spoilers' } }],
      publishNow: true,
    });
    expect(created.status).toBe(201);
    expect(created.body.targets[0]).not.toHaveProperty('options');
    expect(created.body.targets[1]).toEqual(
      expect.objectContaining({ channelId: sandbox, options: { visibility: 'unlisted', contentWarning: 'Spoilers' } }),
    );
    expect(created.body.targets[1]).not.toHaveProperty('content');
    const done = await settled(created.body.id);
    expect(done.status).toBe('published');
    expect(done.targets[1].options).toEqual({ visibility: 'unlisted', contentWarning: 'Spoilers' });
    const timeline = await t.request('GET', `/api/channels/${sandbox}/sandbox/posts`, { key });
    const shown = timeline.body.data.find((p: { id: string }) => p.id === done.targets[1].platformPostId);
    expect(shown).toEqual(
      expect.objectContaining({
        content: 'The finale, discussed',
        options: { visibility: 'unlisted', contentWarning: 'Spoilers' },
      }),
    );
  });

  it('refuses options that break the schema, and any options for a network without one, at targets[i].options.<field>', async () => {
    const body = {
      content: 'Options checked',
      channelIds: [masto, sandbox],
      targets: [
        { channelId: masto, options: { visibility: 'unlisted' } },
        { channelId: sandbox, options: { visibility: 'friends', contentWarning: 'x'.repeat(201), pinned: true } },
      ],
    };
    const checked = await validate(body);
    expect(checked.status).toBe(200);
    expect(checked.body.valid).toBe(false);
    expect(checked.body.problems).toEqual([
      {
        channelId: masto,
        field: 'targets[0].options.visibility',
        message: expect.stringMatching(
          /targets\[0\]\.options\.visibility is not a known field: Mastodon takes no options$/,
        ),
      },
      {
        channelId: sandbox,
        field: 'targets[1].options.pinned',
        message: expect.stringContaining('targets[1].options.pinned is not a known field'),
      },
      {
        channelId: sandbox,
        field: 'targets[1].options.visibility',
        message: expect.stringContaining('must be one of: public, unlisted, private'),
      },
      {
        channelId: sandbox,
        field: 'targets[1].options.contentWarning',
        message: expect.stringContaining('must be at most 200 characters long'),
      },
    ]);
    const refused = await post(body);
    expect(refused.status).toBe(400);
    expect(refused.body.error).toBe('VALIDATION_ERROR');
    expect(refused.body.details.map((d: { field: string }) => d.field)).toEqual([
      'targets[0].options.visibility',
      'targets[1].options.pinned',
      'targets[1].options.visibility',
      'targets[1].options.contentWarning',
    ]);
    // Not an object at all: the request's shape, 400 from the validation pipe.
    const notObject = await post({ ...body, targets: [{ channelId: sandbox, options: 'unlisted' }] });
    expect(notObject.status).toBe(400);
    expect(notObject.body.details).toEqual([{ field: 'targets[0].options', message: expect.any(String) }]);
    expect(
      (await validate({ ...body, targets: [{ channelId: sandbox, options: { visibility: 'private' } }] })).body,
    ).toEqual({ valid: true, problems: [] });
  });

  it('PUT replaces the options (left out: none)', async () => {
    const later = new Date(Date.now() + 3600_000).toISOString();
    const created = await post({
      content: 'Scheduled with options',
      channelIds: [sandbox],
      targets: [{ channelId: sandbox, options: { visibility: 'private' } }],
      scheduledAt: later,
    });
    expect(created.status).toBe(201);
    const id = created.body.id;
    const replaced = await put(id, {
      content: 'Scheduled with options',
      channelIds: [sandbox],
      targets: [{ channelId: sandbox, options: { contentWarning: 'Heads up' } }],
      scheduledAt: later,
    });
    expect(replaced.status).toBe(200);
    expect(replaced.body.targets[0].options).toEqual({ contentWarning: 'Heads up' });
    const cleared = await put(id, { content: 'Scheduled with options', channelIds: [sandbox], scheduledAt: later });
    expect(cleared.status).toBe(200);
    expect(cleared.body.targets[0]).not.toHaveProperty('options');
    expect((await t.request('GET', `/api/posts/${id}`, { key })).body.targets[0]).not.toHaveProperty('options');
  });
});
