import { finalizeEvent, nip19, verifyEvent } from 'nostr-tools';
import WebSocket from 'ws';
import { OutboundHttp } from '../../src/common/http/outbound-http';
import { NostrProvider } from '../../src/providers/nostr/nostr.provider';
import { makePng } from '../factories/png.factory';
import { NostrRelayFake, testKey } from '../fakes/nostr.fake';
import { tempMediaDir } from '../media/media-support';
import { FAST_PUBLISHING_ENV, waitFor } from '../support/publishing-env';
import { TestApp, freePort } from '../support/test-app';
import { uploadMedia } from './chat-network-support';

describe('Nostr through the app, against local relays', () => {
  let t: TestApp;
  let key: string;
  const good = new NostrRelayFake({ maxContentLength: 2000 });
  const other = new NostrRelayFake();
  const silent = new NostrRelayFake({ silent: true });
  const account = testKey();
  const media = tempMediaDir();
  const connect = (credentials: Record<string, unknown>) =>
    t.request('POST', '/api/channels', { key, body: { provider: 'nostr', credentials } });
  const publish = async (channel: string, content: string, extra: Record<string, unknown> = {}) => {
    const created = await t.request('POST', '/api/posts', {
      key,
      body: { content, channelIds: [channel], publishNow: true, ...extra },
    });
    expect(created.status).toBe(201);
    return waitFor(
      async () => (await t.request('GET', `/api/posts/${created.body.id}`, { key })).body,
      (p) => (p.status === 'published' && p.targets[0].firstComment?.status !== 'pending') || p.status === 'failed',
    );
  };

  beforeAll(async () => {
    for (const r of [good, other, silent]) await r.start();
    const port = await freePort();
    t = await TestApp.start({
      port,
      env: {
        ...FAST_PUBLISHING_ENV,
        MEDIA_DIR: media.dir,
        NOSTR_RELAY_TIMEOUT_MS: '1000',
        PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
      },
    });
    key = (await t.createWorkspace()).key;
  });
  afterAll(async () => {
    await t?.close();
    for (const r of [good, other, silent]) await r.stop();
    media.cleanup();
  });

  it('is listed by GET /providers as a credentials network with NIP-01 as its version', async () => {
    const providers = (await t.request('GET', '/api/providers', { key })).body.data;
    expect(providers.find((p: { id: string }) => p.id === 'nostr')).toEqual(
      expect.objectContaining({ name: 'Nostr', connect: 'credentials', apiVersion: 'NIP-01', optionsSchema: null }),
    );
  });

  it('refuses credentials field by field, an nsec with a bad checksum, and relays no one answers at', async () => {
    const missing = await connect({});
    expect(missing.body.details.map((d: { field: string }) => d.field).sort()).toEqual([
      'credentials.privateKey',
      'credentials.relays',
    ]);
    const bad = await connect({ privateKey: 'xyz', relays: [] });
    expect(bad.body.details).toEqual([
      {
        field: 'credentials.privateKey',
        message: 'must be a private key: nsec1... (NIP-19) or 64 hexadecimal characters',
      },
      { field: 'credentials.relays', message: 'must contain at least 1 item' },
    ]);
    const https = await connect({ privateKey: account.hex, relays: ['https://relay.example'] });
    expect(https.body.details).toEqual([
      { field: 'credentials.relays', message: 'must be relay URLs (wss://host[/path])' },
    ]);
    const nsec = nip19.nsecEncode(Uint8Array.from(Buffer.from(account.hex, 'hex')));
    const broken = await connect({
      privateKey: `${nsec.slice(0, -1)}${nsec.endsWith('q') ? 'p' : 'q'}`,
      relays: [good.relayUrl],
    });
    expect(broken.body.message).toMatch(/not a valid nsec/);
    const nowhere = await connect({ privateKey: account.hex, relays: ['ws://127.0.0.1:9'] });
    expect(nowhere.status).toBe(400);
    expect(nowhere.body.message).toMatch(/None of the relays could be reached/);
  });

  it('publishes a signed note to every relay: one refusing and one silent do not stop it; media as imeta with a permanent URL; a first comment as a reply', async () => {
    const nsec = nip19.nsecEncode(Uint8Array.from(Buffer.from(account.hex, 'hex')));
    const res = await connect({ privateKey: nsec, relays: [good.relayUrl, other.relayUrl, silent.relayUrl] });
    expect(res.status).toBe(201);
    expect(res.body.limits.maxCharacters).toBe(2000); // the smallest NIP-11 max_content_length
    const channelId = res.body.id;

    const imageId = await uploadMedia(t, key, makePng(30, 20), 'n.png', 'image/png', 'A small picture');
    other.failNext(1, 400);
    const post = await publish(channelId, 'Hello Nostr', { mediaIds: [imageId], firstComment: 'First!' });
    expect(post.status).toBe('published');
    const note = good.events.find((e) => e.content.startsWith('Hello Nostr'))!;
    expect(verifyEvent(note)).toBe(true);
    expect(note.pubkey).toBe(account.pubkey);
    expect(other.events.some((e) => e.id === note.id)).toBe(false);
    expect(post.targets[0].platformPostId).toBe(note.id);
    expect(post.targets[0].url).toMatch(/^https:\/\/njump\.me\/nevent1/);

    const imeta = note.tags.find((tag) => tag[0] === 'imeta')!;
    const url = imeta.find((entry) => entry.startsWith('url '))!.slice(4);
    expect(url).toMatch(new RegExp(`/api/media/${imageId}/content\\?expires=permanent&signature=`));
    expect(imeta).toEqual(expect.arrayContaining(['m image/png', 'dim 30x20', 'alt A small picture']));
    expect(note.content).toBe(`Hello Nostr\n${url}`);
    const bytes = await fetch(url);
    expect(bytes.status).toBe(200);
    expect(bytes.headers.get('content-type')).toBe('image/png');

    const reply = good.events.find((e) => e.content === 'First!')!;
    expect(reply.tags).toEqual(expect.arrayContaining([['e', note.id, good.relayUrl, 'root', account.pubkey]]));
    expect(post.targets[0].firstComment).toEqual(
      expect.objectContaining({ status: 'published', platformId: reply.id }),
    );
  }, 30_000);

  it('fails the target when no relay accepts, naming each relay; retries when relays may accept later', async () => {
    const res = await connect({ privateKey: account.hex, relays: [good.relayUrl, other.relayUrl] });
    good.failNext(1, 400);
    other.failNext(1, 400);
    const refused = await publish(res.body.id, 'Refused everywhere');
    expect(refused.targets[0].error).toEqual({
      code: 'CONTENT_REJECTED',
      message: expect.stringContaining(`${good.relayUrl} refused (blocked:`),
    });
    good.failNext(1, 429);
    other.failNext(1, 503);
    const later = await publish(res.body.id, 'Accepted on retry');
    expect(later.status).toBe('published');
    expect(later.targets[0].attempts).toBe(2);
    expect(good.events.filter((e) => e.content === 'Accepted on retry')).toHaveLength(1);
  });

  it('refuses ws:// relays and private addresses where the service may not reach them', async () => {
    const http = new OutboundHttp({ allowPrivate: false });
    try {
      const adapter = new NostrProvider(http, { relayTimeoutMs: 1000 });
      await expect(adapter.connect({ privateKey: account.hex, relays: [good.relayUrl] })).rejects.toThrow(
        /must be a wss:\/\/ URL/,
      );
      await expect(adapter.connect({ privateKey: account.hex, relays: ['wss://127.0.0.1:1'] })).rejects.toThrow(
        /None of the relays could be reached/,
      );
    } finally {
      http.close();
    }
  });

  it('counts reactions, reposts and replies the relays hold', async () => {
    const http = new OutboundHttp({ allowPrivate: true });
    try {
      const adapter = new NostrProvider(http, { relayTimeoutMs: 1000 });
      const connected = await adapter.connect({ privateKey: account.hex, relays: [good.relayUrl, other.relayUrl] });
      const note = good.events.find((e) => e.content.startsWith('Hello Nostr'))!;
      good.setCounts(note.id, { likes: 2, reposts: 1 });
      other.setCounts(note.id, { likes: 1 });
      const { metrics } = await adapter.fetchMetrics(connected.credentials, { platformPostId: note.id, url: '' });
      // Two relays, each holding its own reactions; the first comment is a reply.
      expect(metrics).toEqual(expect.objectContaining({ likes: 3, reposts: 1, replies: 1 }));
    } finally {
      http.close();
    }
  });

  it('sent the relays nothing NIP-01 refuses; a note with a malformed imeta or e tag is refused as relays refuse', async () => {
    expect(good.describedBy.source).toMatch(/NIP-01/);
    for (const relay of [good, other, silent]) expect(relay.descriptionViolations).toEqual([]);
    const sk = Uint8Array.from(Buffer.from(account.hex, 'hex'));
    const send = (tags: string[][]) =>
      new Promise<unknown>((resolve) => {
        const ws = new WebSocket(good.relayUrl);
        const event = finalizeEvent({ kind: 1, created_at: Math.floor(Date.now() / 1000), tags, content: 'x' }, sk);
        ws.on('open', () => ws.send(JSON.stringify(['EVENT', event])));
        ws.on('message', (data: Buffer) => {
          ws.terminate();
          resolve(JSON.parse(data.toString()));
        });
      });
    // NIP-92: an imeta tag MUST have a url and one other field; NIP-10: the marker is root or reply.
    const noUrl = await send([['imeta', 'm image/png', 'alt a picture']]);
    expect(noUrl).toEqual(['OK', expect.any(String), false, expect.stringMatching(/^invalid: .*contain/)]);
    const badMarker = await send([['e', 'a'.repeat(64), '', 'parent']]);
    expect(badMarker).toEqual(['OK', expect.any(String), false, expect.stringMatching(/^invalid: /)]);
    expect(good.descriptionViolations.splice(0).map((v) => v.operation)).toEqual(['EVENT', 'EVENT']);
  });
});
