import { makePng } from '../factories/png.factory';
import { BLUESKY_ROUTES, BlueskyFake } from '../fakes/bluesky.fake';
import { MASTODON_ROUTES, MastodonFake } from '../fakes/mastodon.fake';
import { X_ROUTES, XFake } from '../fakes/x.fake';
import { MediaClient, tempMediaDir } from '../media/media-support';
import { FAST_PUBLISHING_ENV, waitFor } from '../support/publishing-env';
import { TestApp } from '../support/test-app';

const pathOf = (url: string) => {
  const u = new URL(url);
  return `${u.pathname}${u.search}`;
};

/** The request carries this text (a thread part's publish, told apart by its content). */
const carries = (text: string) => (req: { body: Buffer }) => req.body.toString('utf8').includes(text);

describe('threads: a post with follow-up parts published as a reply chain', () => {
  const media = tempMediaDir();
  let t: TestApp;
  let mastodon: MastodonFake;
  let bluesky: BlueskyFake;
  let x: XFake;
  let key: string;
  let masto: string;
  let bsky: string;
  let xChannel: string;
  let sandbox: string;
  let flat: string;

  beforeAll(async () => {
    mastodon = new MastodonFake({ tokens: ['tok'], maxCharacters: 500 });
    bluesky = new BlueskyFake({ accounts: [{ identifier: 'thread.test', password: 'pw' }] });
    x = new XFake();
    await Promise.all([mastodon.start(), bluesky.start(), x.start()]);
    t = await TestApp.start({ env: { ...FAST_PUBLISHING_ENV, ...x.appEnv(), MEDIA_DIR: media.dir } });
    ({ key } = await t.createWorkspace('threads'));
    masto = await t.connectChannel(key, 'mastodon', { instanceUrl: mastodon.baseUrl, accessToken: 'tok' });
    bsky = await t.connectChannel(key, 'bluesky', {
      identifier: 'thread.test',
      appPassword: 'pw',
      serviceUrl: bluesky.baseUrl,
    });
    const start = await t.request('POST', '/api/channels/connect/x', { key, body: {} });
    expect(start.status).toBe(201);
    expect((await t.request('GET', pathOf(await x.consent(start.body.authorizationUrl)))).status).toBe(201);
    xChannel = (await t.request('GET', '/api/channels?provider=x', { key })).body.data[0].id;
    sandbox = await t.connectChannel(key, 'sandbox', { name: 'Threads' });
    flat = (
      await t.request('POST', '/api/channels', {
        key,
        body: { provider: 'sandbox', credentials: { name: 'No threads', threads: false } },
      })
    ).body.id;
  });
  afterAll(async () => {
    await t?.close();
    await Promise.all([mastodon.stop(), bluesky.stop(), x.stop()]);
    media.cleanup();
  });

  const getPost = async (id: string) => (await t.request('GET', `/api/posts/${id}`, { key })).body;
  const settled = (id: string) =>
    waitFor(
      () => getPost(id),
      (p) => p.status === 'published' || p.status === 'failed',
    );
  const thread = (tag: string) => ({
    content: `${tag} part one`,
    thread: [{ content: `${tag} part two` }, { content: `${tag} part three` }],
  });
  const publish = async (channelId: string, body: Record<string, unknown>) => {
    const res = await t.request('POST', '/api/posts', {
      key,
      body: { ...body, channelIds: [channelId], publishNow: true },
    });
    expect(res.status).toBe(201);
    return res.body;
  };

  describe('Mastodon', () => {
    const statusesOf = (tag: string) => mastodon.statuses.filter((s) => s.text.startsWith(`${tag} part`));
    const creates = (tag: string) =>
      mastodon.requests.filter((r) => r.route === MASTODON_ROUTES.createStatus && r.at >= startedAt.get(tag)!);
    const startedAt = new Map<string, number>();

    it('publishes the parts as a chain of replies and lists each part on the target', async () => {
      const created = await publish(masto, thread('M1'));
      expect(created.thread).toEqual([
        { content: 'M1 part two', mediaIds: [] },
        { content: 'M1 part three', mediaIds: [] },
      ]);
      const post = await settled(created.id);
      expect(post.status).toBe('published');
      const [one, two, three] = statusesOf('M1');
      expect([one.text, two.text, three.text]).toEqual(['M1 part one', 'M1 part two', 'M1 part three']);
      expect(one.inReplyToId).toBeNull();
      expect(two.inReplyToId).toBe(one.id);
      expect(three.inReplyToId).toBe(two.id);
      const target = post.targets[0];
      expect(target.platformPostId).toBe(one.id);
      expect(target.parts).toEqual(
        [one, two, three].map((s, index) => ({
          index,
          platformPostId: s.id,
          url: expect.stringContaining(s.id),
          publishedAt: expect.any(String),
        })),
      );
    });

    it('retries a transient failure of part 2 from part 2: part 1 is sent once', async () => {
      startedAt.set('M2', Date.now());
      mastodon.failNext(1, 503, MASTODON_ROUTES.createStatus, carries('M2 part two'));
      const post = await settled((await publish(masto, thread('M2'))).id);
      expect(post.status).toBe('published');
      expect(post.targets[0].attempts).toBe(2);
      const [one, two, three] = statusesOf('M2');
      expect(statusesOf('M2')).toHaveLength(3);
      expect([two.inReplyToId, three.inReplyToId]).toEqual([one.id, two.id]);
      // part 1, part 2 (refused), part 2, part 3: the retry did not send part 1 again.
      expect(creates('M2')).toHaveLength(4);
      expect(post.targets[0].parts.map((p: { index: number }) => p.index)).toEqual([0, 1, 2]);
    });

    it('fails the target on a refused middle part, listing the parts published; a retry continues after them', async () => {
      startedAt.set('M3', Date.now());
      mastodon.failNext(1, 422, MASTODON_ROUTES.createStatus, carries('M3 part two'));
      const body = thread('M3');
      const failed = await settled((await publish(masto, body)).id);
      expect(failed.status).toBe('failed');
      const target = failed.targets[0];
      expect(target.status).toBe('failed');
      expect(target.error).toEqual({ code: 'CONTENT_REJECTED', message: expect.stringMatching(/^Part 2 of 3: /) });
      expect(target.parts).toEqual([expect.objectContaining({ index: 0, platformPostId: statusesOf('M3')[0].id })]);
      expect(statusesOf('M3')).toHaveLength(1);

      // The retry: the same body, published again.
      const again = await t.request('PUT', `/api/posts/${failed.id}`, {
        key,
        body: { ...body, channelIds: [masto], publishNow: true },
      });
      expect(again.status).toBe(200);
      expect(again.body.targets[0].parts).toHaveLength(1);
      const post = await settled(failed.id);
      expect(post.status).toBe('published');
      const [one, two, three] = statusesOf('M3');
      expect(statusesOf('M3')).toHaveLength(3);
      expect([two.inReplyToId, three.inReplyToId]).toEqual([one.id, two.id]);
      expect(post.targets[0].platformPostId).toBe(one.id);
      expect(post.targets[0].parts.map((p: { platformPostId: string }) => p.platformPostId)).toEqual([
        one.id,
        two.id,
        three.id,
      ]);
      expect(creates('M3')).toHaveLength(4);
    });
  });

  describe('Bluesky', () => {
    it('publishes replies with root and parent strong references; a failed part 2 is retried alone', async () => {
      const since = Date.now();
      bluesky.failNext(1, 502, BLUESKY_ROUTES.createRecord, carries('B1 part two'));
      const post = await settled((await publish(bsky, thread('B1'))).id);
      expect(post.status).toBe('published');
      const records = bluesky.posts.filter((p) => String(p.record.text).startsWith('B1 part'));
      expect(records.map((p) => p.record.text)).toEqual(['B1 part one', 'B1 part two', 'B1 part three']);
      const [one, two, three] = records;
      const ref = (p: typeof one) => ({ uri: p.uri, cid: p.cid });
      expect(one.record.reply).toBeUndefined();
      expect(two.record.reply).toEqual({ root: ref(one), parent: ref(one) });
      expect(three.record.reply).toEqual({ root: ref(one), parent: ref(two) });
      const calls = bluesky.requests.filter((r) => r.route === BLUESKY_ROUTES.createRecord && r.at >= since);
      expect(calls).toHaveLength(4);
      expect(post.targets[0].platformPostId).toBe(one.uri);
      expect(post.targets[0].parts.map((p: { platformPostId: string }) => p.platformPostId)).toEqual(
        records.map((r) => r.uri),
      );
    });
  });

  describe('X', () => {
    it('replies with in_reply_to_tweet_id; a part whose answer was lost is found again, not posted twice', async () => {
      const since = Date.now();
      // Part 2 is created on X, but the answer is a 503: its outcome is unknown to the service.
      x.failAfterCreateNext(503, (text) => text === 'X1 part two');
      const post = await settled((await publish(xChannel, thread('X1'))).id);
      expect(post.status).toBe('published');
      const tweets = x.tweets.filter((tw) => tw.text.startsWith('X1 part'));
      expect(tweets.map((tw) => tw.text)).toEqual(['X1 part one', 'X1 part two', 'X1 part three']);
      const [one, two, three] = tweets;
      expect([one.inReplyToId, two.inReplyToId, three.inReplyToId]).toEqual([null, one.id, two.id]);
      // One create per part: the retry looked part 2 up instead of posting it again.
      expect(x.requests.filter((r) => r.route === X_ROUTES.createTweet && r.at >= since)).toHaveLength(3);
      expect(post.targets[0].attempts).toBe(2);
      expect(post.targets[0].parts.map((p: { platformPostId: string }) => p.platformPostId)).toEqual(
        tweets.map((tw) => tw.id),
      );
    });
  });

  describe('sandbox', () => {
    it('chains the timeline with inReplyTo; #fail-transient on part 2 retries part 2 only', async () => {
      const body = {
        content: 'S1 part one',
        thread: [{ content: 'S1 part two #fail-transient' }, { content: 'S1 part three' }],
      };
      const post = await settled((await publish(sandbox, body)).id);
      expect(post.status).toBe('published');
      expect(post.targets[0].attempts).toBe(3);
      const timeline = (await t.request('GET', `/api/channels/${sandbox}/sandbox/posts?limit=100`, { key })).body.data;
      const [three, two, one] = timeline.filter((p: { content: string }) => p.content.startsWith('S1 part'));
      expect([one.content, two.content, three.content]).toEqual([
        'S1 part one',
        'S1 part two #fail-transient',
        'S1 part three',
      ]);
      expect([one.inReplyTo, two.inReplyTo, three.inReplyTo]).toEqual([null, one.id, two.id]);
      // The network saw each part's publication: part 1 once, part 2 three times (two refusals), part 3 once.
      const attempts = await t.dataSource.query(
        `SELECT content, attempts FROM sandbox_posts WHERE content LIKE 'S1 part%' ORDER BY published_at`,
      );
      expect(attempts.map((r: { attempts: number }) => r.attempts)).toEqual([1, 3, 1]);
    });
  });

  describe('validation', () => {
    const problemsOf = async (body: Record<string, unknown>) =>
      (await t.request('POST', '/api/posts/validate', { key, body })).body;

    it('checks every part against the limits of each network, naming the part', async () => {
      const body = {
        content: 'fine',
        channelIds: [masto, bsky],
        thread: [{ content: 'fine too' }, { content: 'y'.repeat(400) }],
      };
      const created = await t.request('POST', '/api/posts', { key, body });
      expect(created.status).toBe(400);
      // Bluesky allows 300 characters, this Mastodon instance 500.
      expect(created.body.details).toEqual([
        { field: 'thread[1].content', message: expect.stringMatching(/thread\[1\]: .*Bluesky allows 300/) },
      ]);
      const checked = await problemsOf(body);
      expect(checked).toEqual({
        valid: false,
        problems: [{ channelId: bsky, field: 'thread[1].content', message: expect.stringContaining('300') }],
        warnings: [],
      });
      const empty = await problemsOf({ ...body, thread: [{ content: '  ' }] });
      expect(empty.problems.map((p: { field: string }) => p.field)).toEqual(['thread[0].content', 'thread[0].content']);
    });

    it('refuses a thread for a network without threads, and the same post without one is fine', async () => {
      const body = { content: 'hello', channelIds: [flat, sandbox], thread: [{ content: 'more' }] };
      const res = await t.request('POST', '/api/posts', { key, body });
      expect(res.status).toBe(400);
      expect(res.body.details).toEqual([
        { field: 'thread', message: expect.stringContaining('does not take threads') },
      ]);
      expect((await problemsOf({ ...body, thread: [] })).valid).toBe(true);
      const channels = (await t.request('GET', '/api/channels?provider=sandbox', { key })).body.data;
      expect(channels.find((c: { id: string }) => c.id === flat).limits.threads).toBe(false);
      const providers = (await t.request('GET', '/api/providers', { key })).body.data;
      const threads = Object.fromEntries(
        providers.map((p: { id: string; limits: { threads: boolean } }) => [p.id, p.limits.threads]),
      );
      expect(threads).toEqual({
        sandbox: true,
        mastodon: true,
        bluesky: true,
        x: true,
        linkedin: false,
        threads: true,
        instagram: false,
        facebook: false,
        telegram: true,
        youtube: false,
        tiktok: false,
        discord: false,
        slack: false,
        pinterest: false,
        google_business: false,
        reddit: true,
        tumblr: false,
        wordpress: false,
        lemmy: false,
        nostr: true,
      });
    });

    it('refuses malformed parts with their path, and media that is not ready in a part', async () => {
      const malformed = await t.request('POST', '/api/posts', {
        key,
        body: { content: 'x', channelIds: [sandbox], thread: [{ content: 'ok' }, { content: 5 }] },
      });
      expect(malformed.status).toBe(400);
      expect(malformed.body.details).toEqual([{ field: 'thread[1].content', message: expect.any(String) }]);
      for (const thread of [
        [[]],
        [null],
        ['text'],
        'text',
        [{}],
        Array.from({ length: 25 }, () => ({ content: 'x' })),
      ]) {
        const res = await t.request('POST', '/api/posts/validate', {
          key,
          body: { content: 'x', channelIds: [sandbox], thread },
        });
        expect({ thread, status: res.status, error: res.body.error }).toEqual({
          thread,
          status: 400,
          error: 'VALIDATION_ERROR',
        });
      }
      const pending = await new MediaClient(t, key).initialize({ filename: 'a.png', mimeType: 'image/png', size: 10 });
      const missing = '00000000-0000-4000-8000-000000000000';
      const res = await problemsOf({
        content: 'x',
        channelIds: [sandbox],
        thread: [{ content: 'ok', mediaIds: [pending.body.id, missing] }],
      });
      expect(res.problems).toEqual([
        { channelId: null, field: 'thread[0].mediaIds', message: expect.stringContaining('uploading, not ready') },
        { channelId: null, field: 'thread[0].mediaIds', message: expect.stringContaining('not found') },
      ]);
    });
  });

  it('counts media of thread parts as in use: a scheduled post keeps them from deletion', async () => {
    const client = new MediaClient(t, key);
    const png = makePng(8, 8);
    const item = (await client.initialize({ filename: 'p.png', mimeType: 'image/png', size: png.length })).body;
    await client.chunk(item.id, 0, png);
    expect((await client.finalize(item.id)).body.status).toBe('ready');
    const scheduled = await t.request('POST', '/api/posts', {
      key,
      body: {
        content: 'with an image further down',
        channelIds: [sandbox],
        thread: [{ content: 'here it is', mediaIds: [item.id] }],
        scheduledAt: new Date(Date.now() + 3_600_000).toISOString(),
      },
    });
    expect(scheduled.status).toBe(201);
    expect((await client.delete(item.id)).status).toBe(409);
    expect((await t.request('DELETE', `/api/posts/${scheduled.body.id}`, { key })).status).toBe(204);

    // Each part takes its own media to the network.
    const post = await settled(
      (await publish(sandbox, { content: 'M part one', thread: [{ content: 'M part two', mediaIds: [item.id] }] })).id,
    );
    expect(post.status).toBe('published');
    const timeline = (await t.request('GET', `/api/channels/${sandbox}/sandbox/posts?limit=100`, { key })).body.data;
    const byContent = (c: string) => timeline.find((p: { content: string }) => p.content === c);
    expect(byContent('M part one').media).toEqual([]);
    expect(byContent('M part two').media).toEqual([expect.objectContaining({ id: item.id, size: png.length })]);
    expect((await client.delete(item.id)).status).toBe(204);
  });
});
