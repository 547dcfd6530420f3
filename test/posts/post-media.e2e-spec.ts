import { BlueskyFake } from '../fakes/bluesky.fake';
import { MastodonFake } from '../fakes/mastodon.fake';
import { makePng } from '../factories/png.factory';
import { MediaClient, tempMediaDir } from '../media/media-support';
import { FAST_PUBLISHING_ENV, waitFor } from '../support/publishing-env';
import { TestApp } from '../support/test-app';

describe('a post with an image', () => {
  let t: TestApp;
  let mastodon: MastodonFake;
  let bluesky: BlueskyFake;
  const media = tempMediaDir();

  beforeAll(async () => {
    mastodon = new MastodonFake({ tokens: ['tok'], mediaPollsBeforeReady: 1 });
    bluesky = new BlueskyFake();
    await Promise.all([mastodon.start(), bluesky.start()]);
    t = await TestApp.start({ env: { ...FAST_PUBLISHING_ENV, MEDIA_DIR: media.dir } });
  });
  afterAll(async () => {
    await t?.close();
    await Promise.all([mastodon.stop(), bluesky.stop()]);
    media.cleanup();
  });

  it('uploads the image to Mastodon and Bluesky and attaches it; the media cannot be deleted while scheduled', async () => {
    const { key } = await t.createWorkspace();
    const connect = async (provider: string, credentials: Record<string, string>) =>
      (await t.request('POST', '/api/channels', { key, body: { provider, credentials } })).body.id as string;
    const masto = await connect('mastodon', { instanceUrl: mastodon.baseUrl, accessToken: 'tok' });
    const bsky = await connect('bluesky', {
      identifier: 'alice.test',
      appPassword: 'app-pass',
      serviceUrl: bluesky.baseUrl,
    });

    const png = makePng(64, 48);
    const client = new MediaClient(t, key);
    const init = await client.initialize({ filename: 'pic.png', mimeType: 'image/png', size: png.length });
    expect(init.status).toBe(201);
    expect((await client.chunk(init.body.id, 0, png)).status).toBe(200);
    const ready = await client.finalize(init.body.id);
    expect(ready.body).toEqual(expect.objectContaining({ status: 'ready', width: 64, height: 48 }));

    // scheduled: the media is in use
    const scheduled = await t.request('POST', '/api/posts', {
      key,
      body: {
        content: 'later',
        channelIds: [masto],
        mediaIds: [init.body.id],
        scheduledAt: new Date(Date.now() + 60_000).toISOString(),
      },
    });
    expect(scheduled.status).toBe(201);
    const del = await client.delete(init.body.id);
    expect(del.status).toBe(409);
    expect((await t.request('DELETE', `/api/posts/${scheduled.body.id}`, { key })).status).toBe(204);

    const created = await t.request('POST', '/api/posts', {
      key,
      body: { content: 'Look at this', channelIds: [masto, bsky], mediaIds: [init.body.id], publishNow: true },
    });
    expect(created.status).toBe(201);
    const post = await waitFor(
      async () => (await t.request('GET', `/api/posts/${created.body.id}`, { key })).body,
      (p) => p.status !== 'publishing',
    );
    expect(post.status).toBe('published');

    const status = mastodon.statuses.find((s) => s.text === 'Look at this')!;
    expect(status.mediaIds).toHaveLength(1);
    const uploaded = mastodon.media.find((m) => m.id === status.mediaIds[0])!;
    expect(uploaded.bytes.equals(png)).toBe(true);
    expect(uploaded.mimeType).toBe('image/png');

    const record = bluesky.posts.find((p) => p.record.text === 'Look at this')!.record as {
      embed: { $type: string; images: Array<{ image: { mimeType: string; size: number } }> };
    };
    expect(record.embed.$type).toBe('app.bsky.embed.images');
    expect(record.embed.images[0].image).toEqual(expect.objectContaining({ mimeType: 'image/png', size: png.length }));
    expect(bluesky.blobs.some((b) => b.size === png.length)).toBe(true);

    // no longer scheduled or publishing: deletable
    expect((await client.delete(init.body.id)).status).toBe(204);
  });

  it('refuses media that is not ready or not in the workspace, naming it', async () => {
    const { key } = await t.createWorkspace();
    const channel = (
      await t.request('POST', '/api/channels', {
        key,
        body: { provider: 'mastodon', credentials: { instanceUrl: mastodon.baseUrl, accessToken: 'tok' } },
      })
    ).body.id;
    const client = new MediaClient(t, key);
    const pending = await client.initialize({ filename: 'p.png', mimeType: 'image/png', size: 100 });
    const res = await t.request('POST', '/api/posts', {
      key,
      body: { content: 'x', channelIds: [channel], mediaIds: [pending.body.id] },
    });
    expect(res.status).toBe(400);
    expect(res.body.message).toContain(pending.body.id);
    expect(res.body.details[0].field).toBe('mediaIds');
  });
});
