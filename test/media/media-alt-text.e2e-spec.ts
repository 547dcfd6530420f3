/**
 * Alt text of media items: set at initialize or with an upload from a URL, changed or removed with
 * PATCH /media/{id}, shown on the item, and sent with the image to Mastodon (`description`) and
 * Bluesky (`alt`). X and LinkedIn are covered by the provider contract suite.
 */
import { BlueskyFake } from '../fakes/bluesky.fake';
import { MastodonFake } from '../fakes/mastodon.fake';
import { makePng } from '../factories/png.factory';
import { FileServer } from '../support/file-server';
import { FAST_PUBLISHING_ENV, waitFor } from '../support/publishing-env';
import { TestApp } from '../support/test-app';
import { MediaClient, tempMediaDir } from './media-support';

describe('alt text of media', () => {
  const media = tempMediaDir();
  const files = new FileServer();
  let t: TestApp;
  let mastodon: MastodonFake;
  let bluesky: BlueskyFake;
  let key: string;
  let client: MediaClient;
  const png = makePng(40, 30);

  const patch = (id: string, body: unknown, k = key) => t.request('PATCH', `/api/media/${id}`, { key: k, body });

  async function readyImage(altText?: string | null): Promise<string> {
    const init = await client.initialize({
      filename: 'alt.png',
      mimeType: 'image/png',
      size: png.length,
      ...(altText !== undefined ? { altText } : {}),
    });
    expect(init.status).toBe(201);
    expect((await client.chunk(init.body.id, 0, png)).status).toBe(200);
    expect((await client.finalize(init.body.id)).status).toBe(200);
    return init.body.id;
  }

  beforeAll(async () => {
    mastodon = new MastodonFake({ tokens: ['tok'], mediaPollsBeforeReady: 0 });
    bluesky = new BlueskyFake();
    await Promise.all([mastodon.start(), bluesky.start(), files.start()]);
    t = await TestApp.start({ env: { ...FAST_PUBLISHING_ENV, MEDIA_DIR: media.dir } });
    key = (await t.createWorkspace()).key;
    client = new MediaClient(t, key);
  });
  afterAll(async () => {
    await t?.close();
    await Promise.all([mastodon.stop(), bluesky.stop(), files.stop()]);
    media.cleanup();
  });

  it('is set at initialize and shown on the item; white space alone or none is null', async () => {
    const init = await client.initialize({
      filename: 'a.png',
      mimeType: 'image/png',
      size: png.length,
      altText: 'A sunset\nover the sea',
    });
    expect(init.status).toBe(201);
    expect(init.body.altText).toBe('A sunset\nover the sea');
    expect((await client.get(init.body.id)).body.altText).toBe('A sunset\nover the sea');
    const blank = await client.initialize({ filename: 'b.png', mimeType: 'image/png', size: 10, altText: '   ' });
    expect(blank.body.altText).toBeNull();
    const none = await client.initialize({ filename: 'c.png', mimeType: 'image/png', size: 10 });
    expect(none.body.altText).toBeNull();
    const explicitNull = await client.initialize({ filename: 'd.png', mimeType: 'image/png', size: 10, altText: null });
    expect(explicitNull.status).toBe(201);
    expect(explicitNull.body.altText).toBeNull();
  });

  it('refuses alt text over 1500 characters, not a string, or with a NUL character (400 naming the field)', async () => {
    const init = (altText: unknown) =>
      client.initialize({ filename: 'a.png', mimeType: 'image/png', size: png.length, altText });
    const long = await init('x'.repeat(1501));
    expect(long.status).toBe(400);
    expect(long.body.details).toContainEqual({ field: 'altText', message: expect.stringContaining('1500') });
    expect((await init('é'.repeat(1500))).status).toBe(201);
    expect((await init(42)).status).toBe(400);
    const nul = await init('bad\u0000text');
    expect(nul.status).toBe(400);
    expect(nul.body.error).toBe('VALIDATION_ERROR');
  });

  it('is set with an upload from a URL', async () => {
    const url = files.put('/alt.png', { type: 'image/png', body: png });
    const res = await t.request('POST', '/api/media/upload/url', { key, body: { url, altText: 'From a URL' } });
    expect(res.status).toBe(201);
    expect(res.body).toEqual(expect.objectContaining({ status: 'ready', altText: 'From a URL' }));
  });

  it('changes with PATCH /media/{id}, null removes it; the body and the id are checked', async () => {
    const id = await readyImage('first');
    const changed = await patch(id, { altText: 'second' });
    expect(changed.status).toBe(200);
    expect(changed.body).toEqual(expect.objectContaining({ id, status: 'ready', altText: 'second' }));
    expect((await client.get(id)).body.altText).toBe('second');
    const cleared = await patch(id, { altText: null });
    expect(cleared.status).toBe(200);
    expect(cleared.body.altText).toBeNull();

    expect((await patch(id, {})).status).toBe(400);
    expect((await patch(id, { altText: 'x'.repeat(1501) })).status).toBe(400);
    expect((await patch(id, { altText: 'ok', filename: 'other.png' })).status).toBe(400);
    expect((await patch('6f1d2c3b-4a5e-4f60-8a7b-9c0d1e2f3a4b', { altText: 'x' })).status).toBe(404);
    const other = await t.createWorkspace();
    expect((await patch(id, { altText: 'x' }, other.key)).status).toBe(404);
    expect((await t.request('PATCH', `/api/media/${id}`, { body: { altText: 'x' } })).status).toBe(401);
  });

  it('reaches Mastodon (description) and Bluesky (alt); a later change reaches the next post', async () => {
    const connect = async (provider: string, credentials: Record<string, string>) =>
      (await t.request('POST', '/api/channels', { key, body: { provider, credentials } })).body.id as string;
    const masto = await connect('mastodon', { instanceUrl: mastodon.baseUrl, accessToken: 'tok' });
    const bsky = await connect('bluesky', {
      identifier: 'alice.test',
      appPassword: 'app-pass',
      serviceUrl: bluesky.baseUrl,
    });
    const withAlt = await readyImage('Two cats on a sofa, one asleep');
    const without = await readyImage();

    const publish = async (content: string, mediaIds: string[]) => {
      const created = await t.request('POST', '/api/posts', {
        key,
        body: { content, channelIds: [masto, bsky], mediaIds, publishNow: true },
      });
      expect({ status: created.status, body: created.body }).toEqual({ status: 201, body: expect.anything() });
      const post = await waitFor(
        async () => (await t.request('GET', `/api/posts/${created.body.id}`, { key })).body,
        (p) => p.status !== 'publishing',
      );
      expect(post.status).toBe('published');
    };
    const mastodonAlts = (text: string) => {
      const status = mastodon.statuses.find((s) => s.text === text)!;
      return status.mediaIds.map((id) => mastodon.media.find((m) => m.id === id)!.description);
    };
    const blueskyAlts = (text: string) => {
      const record = bluesky.posts.find((p) => p.record.text === text)!.record as {
        embed: { images: Array<{ alt: string }> };
      };
      return record.embed.images.map((i) => i.alt);
    };

    await publish('Cats, with alt text', [withAlt, without]);
    expect(mastodonAlts('Cats, with alt text')).toEqual(['Two cats on a sofa, one asleep', null]);
    expect(blueskyAlts('Cats, with alt text')).toEqual(['Two cats on a sofa, one asleep', '']);

    expect((await patch(withAlt, { altText: 'Two cats, both awake now' })).status).toBe(200);
    await publish('Cats, later', [withAlt]);
    expect(mastodonAlts('Cats, later')).toEqual(['Two cats, both awake now']);
    expect(blueskyAlts('Cats, later')).toEqual(['Two cats, both awake now']);
  });
});
