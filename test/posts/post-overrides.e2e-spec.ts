/**
 * Per-channel content: `targets: [{channelId, content?, mediaIds?}]` on POST /posts, PUT /posts/{id}
 * and POST /posts/validate. The override replaces the first part on its channel only, is checked
 * against that channel's limits, is shown on the post's targets, and its media count as in use.
 */
import { BlueskyFake } from '../fakes/bluesky.fake';
import { MastodonFake } from '../fakes/mastodon.fake';
import { makePng } from '../factories/png.factory';
import { MediaClient, tempMediaDir } from '../media/media-support';
import { FAST_PUBLISHING_ENV, waitFor } from '../support/publishing-env';
import { TestApp } from '../support/test-app';

describe('per-channel content overrides', () => {
  const media = tempMediaDir();
  let t: TestApp;
  let mastodon: MastodonFake;
  let bluesky: BlueskyFake;
  let key: string;
  let masto: string;
  let bsky: string;
  let client: MediaClient;

  const post = (body: Record<string, unknown>) => t.request('POST', '/api/posts', { key, body });
  const put = (id: string, body: Record<string, unknown>) => t.request('PUT', `/api/posts/${id}`, { key, body });
  const validate = (body: Record<string, unknown>) => t.request('POST', '/api/posts/validate', { key, body });
  const settled = (id: string) =>
    waitFor(
      async () => (await t.request('GET', `/api/posts/${id}`, { key })).body,
      (p) => p.status === 'published' || p.status === 'failed',
    );

  async function image(width: number): Promise<string> {
    const png = makePng(width, 20);
    const init = await client.initialize({ filename: `w${width}.png`, mimeType: 'image/png', size: png.length });
    expect((await client.chunk(init.body.id, 0, png)).status).toBe(200);
    expect((await client.finalize(init.body.id)).status).toBe(200);
    return init.body.id;
  }

  beforeAll(async () => {
    mastodon = new MastodonFake({ tokens: ['tok'], mediaPollsBeforeReady: 0 });
    bluesky = new BlueskyFake();
    await Promise.all([mastodon.start(), bluesky.start()]);
    t = await TestApp.start({ env: { ...FAST_PUBLISHING_ENV, MEDIA_DIR: media.dir } });
    key = (await t.createWorkspace()).key;
    client = new MediaClient(t, key);
    masto = await t.connectChannel(key, 'mastodon', { instanceUrl: mastodon.baseUrl, accessToken: 'tok' });
    bsky = await t.connectChannel(key, 'bluesky', {
      identifier: 'alice.test',
      appPassword: 'app-pass',
      serviceUrl: bluesky.baseUrl,
    });
  });
  afterAll(async () => {
    await t?.close();
    await Promise.all([mastodon.stop(), bluesky.stop()]);
    media.cleanup();
  });

  it('publishes the override on its channel only: its text and media there, the post’s elsewhere', async () => {
    const shared = await image(30);
    const own = await image(31);
    const long = `${'A long announcement with every detail. '.repeat(9)}#launch`; // over Bluesky's 300
    const created = await post({
      content: long,
      channelIds: [masto, bsky],
      mediaIds: [shared],
      targets: [{ channelId: bsky, content: 'The short version for Bluesky', mediaIds: [own] }],
      publishNow: true,
    });
    expect(created.status).toBe(201);
    expect(created.body.targets).toEqual([
      expect.not.objectContaining({ content: expect.anything() }),
      expect.objectContaining({ channelId: bsky, content: 'The short version for Bluesky', mediaIds: [own] }),
    ]);
    expect(created.body.targets[0]).not.toHaveProperty('mediaIds');
    const done = await settled(created.body.id);
    expect(done.status).toBe('published');
    expect(done.targets[1]).toEqual(
      expect.objectContaining({ content: 'The short version for Bluesky', mediaIds: [own], status: 'published' }),
    );

    // Mastodon got the post's text and image; Bluesky the override and its own image, nothing else.
    const status = mastodon.statuses.find((s) => s.text === long)!;
    expect(status.mediaIds).toHaveLength(1);
    expect(mastodon.media.find((m) => m.id === status.mediaIds[0])!.filename).toBe('w30.png');
    expect(mastodon.statuses.some((s) => s.text.includes('short version'))).toBe(false);
    const records = bluesky.posts.filter((p) => p.record.text === 'The short version for Bluesky');
    expect(records).toHaveLength(1);
    const images = (records[0].record.embed as { images: Array<{ aspectRatio?: { width: number } }> }).images;
    expect(images.map((i) => i.aspectRatio?.width)).toEqual([31]);
    expect(bluesky.posts.some((p) => String(p.record.text).startsWith('A long announcement'))).toBe(false);
  });

  it('overrides content or media alone; `mediaIds: []` publishes that channel without media', async () => {
    const shared = await image(32);
    const created = await post({
      content: 'Same words, media only on Mastodon',
      channelIds: [masto, bsky],
      mediaIds: [shared],
      targets: [{ channelId: bsky, mediaIds: [] }],
      publishNow: true,
    });
    expect(created.status).toBe(201);
    expect(created.body.targets[1]).toEqual(expect.objectContaining({ channelId: bsky, mediaIds: [] }));
    expect(created.body.targets[1]).not.toHaveProperty('content');
    expect((await settled(created.body.id)).status).toBe('published');
    expect(mastodon.statuses.find((s) => s.text === 'Same words, media only on Mastodon')!.mediaIds).toHaveLength(1);
    const record = bluesky.posts.find((p) => p.record.text === 'Same words, media only on Mastodon')!.record;
    expect(record.embed).toBeUndefined();
  });

  it('keeps thread parts shared: the override replaces the first part on its channel', async () => {
    const created = await post({
      content: 'Thread start for everyone (1/2)',
      thread: [{ content: 'Shared second part (2/2)' }],
      channelIds: [masto, bsky],
      targets: [{ channelId: masto, content: 'Thread start for Mastodon (1/2)' }],
      publishNow: true,
    });
    expect(created.status).toBe(201);
    expect((await settled(created.body.id)).status).toBe('published');
    const first = mastodon.statuses.find((s) => s.text === 'Thread start for Mastodon (1/2)')!;
    const second = mastodon.statuses.find((s) => s.text === 'Shared second part (2/2)')!;
    expect(second.inReplyToId).toBe(first.id);
    expect(mastodon.statuses.some((s) => s.text === 'Thread start for everyone (1/2)')).toBe(false);
    expect(bluesky.posts.some((p) => p.record.text === 'Thread start for everyone (1/2)')).toBe(true);
    expect(bluesky.posts.some((p) => p.record.text === 'Shared second part (2/2)')).toBe(true);
  });

  it('refuses entries for channels not in channelIds, a channel twice, and entries that override nothing (400 with the path)', async () => {
    const base = { content: 'hello', channelIds: [masto] };
    for (const send of [post, validate]) {
      const foreign = await send({ ...base, targets: [{ channelId: bsky, content: 'x' }] });
      expect(foreign.status).toBe(400);
      expect(foreign.body.error).toBe('VALIDATION_ERROR');
      expect(foreign.body.details).toEqual([
        { field: 'targets[0].channelId', message: `channel ${bsky} is not one of channelIds` },
      ]);
    }
    const twice = await post({
      ...base,
      targets: [
        { channelId: masto, content: 'a' },
        { channelId: masto, content: 'b' },
      ],
    });
    expect(twice.status).toBe(400);
    expect(twice.body.details).toEqual([{ field: 'targets[1].channelId', message: expect.stringContaining('twice') }]);
    const empty = await post({ ...base, targets: [{ channelId: masto }] });
    expect(empty.status).toBe(400);
    expect(empty.body.details).toEqual([
      { field: 'targets[0]', message: expect.stringContaining('content, mediaIds, options or firstComment') },
    ]);
    const malformed = await post({ ...base, targets: [{ channelId: 'nope', content: 1, extra: true }] });
    expect(malformed.status).toBe(400);
    const fields = (malformed.body.details as Array<{ field: string }>).map((d) => d.field);
    expect(fields).toEqual(expect.arrayContaining(['targets[0].channelId', 'targets[0].content', 'targets[0].extra']));
    expect((await post({ ...base, targets: [null] })).status).toBe(400);
  });

  it('checks each override against its own channel: problems name targets[i].content and targets[i].mediaIds', async () => {
    const tooLongForBluesky = 'x'.repeat(301);
    const body = {
      content: 'Fine everywhere',
      channelIds: [masto, bsky],
      targets: [
        { channelId: masto, content: 'Fine on Mastodon' },
        { channelId: bsky, content: tooLongForBluesky, mediaIds: ['6f1d2c3b-4a5e-4f60-8a7b-9c0d1e2f3a4b'] },
      ],
    };
    const checked = await validate(body);
    expect(checked.status).toBe(200);
    expect(checked.body.valid).toBe(false);
    expect(checked.body.problems).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ channelId: bsky, field: 'targets[1].content' }),
        expect.objectContaining({
          channelId: bsky,
          field: 'targets[1].mediaIds',
          message: expect.stringContaining('not found'),
        }),
      ]),
    );
    expect(checked.body.problems.every((p: { channelId: string }) => p.channelId === bsky)).toBe(true);
    const refused = await post(body);
    expect(refused.status).toBe(400);
    expect(refused.body.details.map((d: { field: string }) => d.field)).toContain('targets[1].content');

    // The post's own text too long for Bluesky is fine when Bluesky has its own.
    const ok = await validate({
      content: tooLongForBluesky,
      channelIds: [masto, bsky],
      targets: [{ channelId: bsky, content: 'short' }],
    });
    expect(ok.body).toEqual({ valid: true, problems: [], warnings: [] });
    const notOk = await validate({ content: tooLongForBluesky, channelIds: [masto, bsky] });
    expect(notOk.body.problems).toEqual([expect.objectContaining({ channelId: bsky, field: 'content' })]);
  });

  it('PUT replaces the overrides (left out: none); the override media are in use while scheduled', async () => {
    const own = await image(33);
    const later = new Date(Date.now() + 3600_000).toISOString();
    const created = await post({
      content: 'Scheduled with an override',
      channelIds: [masto, bsky],
      targets: [{ channelId: masto, content: 'Mastodon words', mediaIds: [own] }],
      scheduledAt: later,
    });
    expect(created.status).toBe(201);
    const id = created.body.id;
    const inUse = await client.delete(own);
    expect(inUse.status).toBe(409);
    expect(inUse.body.message).toMatch(/used by a scheduled/);

    const replaced = await put(id, {
      content: 'Scheduled with an override',
      channelIds: [masto, bsky],
      targets: [{ channelId: bsky, content: 'Bluesky words' }],
      scheduledAt: later,
    });
    expect(replaced.status).toBe(200);
    expect(replaced.body.targets[0]).not.toHaveProperty('content');
    expect(replaced.body.targets[0]).not.toHaveProperty('mediaIds');
    expect(replaced.body.targets[1]).toEqual(expect.objectContaining({ channelId: bsky, content: 'Bluesky words' }));

    const cleared = await put(id, { content: 'No overrides now', channelIds: [masto, bsky], scheduledAt: later });
    expect(cleared.status).toBe(200);
    for (const target of cleared.body.targets) expect(target).not.toHaveProperty('content');
    // Its media no longer in use: it can go.
    expect((await client.delete(own)).status).toBe(204);
    expect((await t.request('DELETE', `/api/posts/${id}`, { key })).status).toBe(204);
  });
});
