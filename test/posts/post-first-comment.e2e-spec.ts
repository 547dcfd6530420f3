import { BlueskyFake } from '../fakes/bluesky.fake';
import { MASTODON_ROUTES, MastodonFake } from '../fakes/mastodon.fake';
import { X_ROUTES, XFake } from '../fakes/x.fake';
import { PublishReconcileJob } from '../../src/posts/publish-reconcile.job';
import { FirstCommentQueue } from '../../src/posts/first-comment.queue';
import { FAST_PUBLISHING_ENV, waitFor } from '../support/publishing-env';
import { TestApp } from '../support/test-app';

const pathOf = (url: string) => {
  const u = new URL(url);
  return `${u.pathname}${u.search}`;
};

/** The request carries this text. */
const carries = (text: string) => (req: { body: Buffer }) => req.body.toString('utf8').includes(text);

interface TimelinePost {
  id: string;
  content: string;
  inReplyTo: string | null;
}

describe('first comments: published on the post once it is live, with an outcome of their own', () => {
  let t: TestApp;
  let mastodon: MastodonFake;
  let bluesky: BlueskyFake;
  let x: XFake;
  let key: string;
  let sandbox: string;
  let noComments: string;
  let masto: string;
  let bsky: string;
  let xChannel: string;

  beforeAll(async () => {
    mastodon = new MastodonFake({ tokens: ['tok'], maxCharacters: 500 });
    bluesky = new BlueskyFake({ accounts: [{ identifier: 'comment.test', password: 'pw' }] });
    x = new XFake();
    await Promise.all([mastodon.start(), bluesky.start(), x.start()]);
    t = await TestApp.start({ env: { ...FAST_PUBLISHING_ENV, ...x.appEnv() } });
    ({ key } = await t.createWorkspace('first-comments'));
    sandbox = await t.connectChannel(key, 'sandbox', { name: 'Comments' });
    noComments = (
      await t.request('POST', '/api/channels', {
        key,
        body: { provider: 'sandbox', credentials: { name: 'No comments', firstComment: false } },
      })
    ).body.id;
    masto = await t.connectChannel(key, 'mastodon', { instanceUrl: mastodon.baseUrl, accessToken: 'tok' });
    bsky = await t.connectChannel(key, 'bluesky', {
      identifier: 'comment.test',
      appPassword: 'pw',
      serviceUrl: bluesky.baseUrl,
    });
    const start = await t.request('POST', '/api/channels/connect/x', { key, body: {} });
    expect(start.status).toBe(201);
    expect((await t.request('GET', pathOf(await x.consent(start.body.authorizationUrl)))).status).toBe(201);
    xChannel = (await t.request('GET', '/api/channels?provider=x', { key })).body.data[0].id;
  });
  afterAll(async () => {
    await t?.close();
    await Promise.all([mastodon.stop(), bluesky.stop(), x.stop()]);
  });

  const getPost = async (id: string) => (await t.request('GET', `/api/posts/${id}`, { key })).body;
  /** The post once it settled and every comment left pending (a comment may be retried later). */
  const commented = (id: string) =>
    waitFor(
      () => getPost(id),
      (p) =>
        (p.status === 'published' || p.status === 'failed') &&
        p.targets.every((tg: { firstComment: { status: string } | null }) => tg.firstComment?.status !== 'pending'),
    );
  const settled = (id: string) =>
    waitFor(
      () => getPost(id),
      (p) => p.status === 'published' || p.status === 'failed',
    );
  const publish = async (body: Record<string, unknown>) => {
    const res = await t.request('POST', '/api/posts', { key, body: { publishNow: true, ...body } });
    expect(res.status).toBe(201);
    return res.body;
  };
  const timeline = async (channelId: string): Promise<TimelinePost[]> =>
    (await t.request('GET', `/api/channels/${channelId}/sandbox/posts?limit=100`, { key })).body.data;
  const events = async (type: string) =>
    (await t.request('GET', `/api/events?type=${type}&limit=100`, { key })).body.data as Array<{
      data: { id: string; targets: Array<{ firstComment: unknown }> };
    }>;

  describe('sandbox', () => {
    it('replies on the timeline once the post is live; the target shows the comment and post.published says it is pending', async () => {
      const created = await publish({ content: 'C1 post', channelIds: [sandbox], firstComment: 'C1 comment' });
      expect(created.firstComment).toBe('C1 comment');
      expect(created.targets[0].firstComment).toEqual({
        content: 'C1 comment',
        status: 'pending',
        platformId: null,
        url: null,
        error: null,
      });
      const post = await commented(created.id);
      expect(post.status).toBe('published');
      const posts = (await timeline(sandbox)).filter((p) => p.content.startsWith('C1'));
      const root = posts.find((p) => p.content === 'C1 post')!;
      const comment = posts.find((p) => p.content === 'C1 comment')!;
      expect(posts).toHaveLength(2);
      expect(comment.inReplyTo).toBe(root.id);
      expect(post.targets[0].platformPostId).toBe(root.id);
      expect(post.targets[0].firstComment).toEqual({
        content: 'C1 comment',
        status: 'published',
        platformId: comment.id,
        url: `sandbox:posts/${comment.id}`,
        error: null,
      });
      // The post's event was recorded with the post: its comment was still to go out.
      const published = (await events('post.published')).find((e) => e.data.id === created.id)!;
      expect(published.data.targets[0].firstComment).toEqual(expect.objectContaining({ status: 'pending' }));
    });

    it('a target override replaces the comment for its channel, and "" leaves it out there', async () => {
      const other = await t.connectChannel(key, 'sandbox', { name: 'Other' });
      const post = await commented(
        (
          await publish({
            content: 'C2 post',
            channelIds: [sandbox, other, noComments],
            firstComment: 'C2 shared',
            targets: [
              { channelId: other, firstComment: 'C2 own' },
              { channelId: noComments, firstComment: '' },
            ],
          })
        ).id,
      );
      expect(post.status).toBe('published');
      expect(
        post.targets.map((tg: { firstComment: { content: string } | null }) => tg.firstComment?.content ?? null),
      ).toEqual(['C2 shared', 'C2 own', null]);
      expect((await timeline(other)).map((p) => p.content)).toEqual(expect.arrayContaining(['C2 own']));
      expect((await timeline(noComments)).filter((p) => p.content.startsWith('C2')).map((p) => p.content)).toEqual([
        'C2 post',
      ]);
    });

    it('a comment refused for good leaves the post published and records post.first_comment_failed', async () => {
      const created = await publish({ content: 'C3 post', channelIds: [sandbox], firstComment: 'C3 #fail-permanent' });
      const post = await commented(created.id);
      expect(post.status).toBe('published');
      expect(post.targets[0]).toEqual(
        expect.objectContaining({
          status: 'published',
          attempts: 1,
          error: null,
          firstComment: expect.objectContaining({
            status: 'failed',
            platformId: null,
            error: expect.stringContaining('#fail-permanent'),
          }),
        }),
      );
      const failed = await waitFor(
        () => events('post.first_comment_failed'),
        (list) => list.some((e) => e.data.id === created.id),
      );
      const event = failed.find((e) => e.data.id === created.id)!;
      expect(event.data.targets[0].firstComment).toEqual(expect.objectContaining({ status: 'failed' }));
      expect((await events('post.failed')).some((e) => e.data.id === created.id)).toBe(false);
    });

    it('a transient comment failure retries the comment alone: the post is sent once', async () => {
      const post = await commented(
        (await publish({ content: 'C4 post', channelIds: [sandbox], firstComment: 'C4 #fail-transient' })).id,
      );
      expect(post.status).toBe('published');
      expect(post.targets[0].attempts).toBe(1);
      expect(post.targets[0].firstComment).toEqual(expect.objectContaining({ status: 'published', error: null }));
      const rows = await t.dataSource.query(
        `SELECT content, attempts FROM sandbox_posts WHERE content LIKE 'C4%' ORDER BY published_at`,
      );
      expect(rows).toEqual([
        { content: 'C4 post', attempts: 1 },
        { content: 'C4 #fail-transient', attempts: 3 },
      ]);
    });

    it('a crash between post and comment posts neither twice: the reconciler and duplicate jobs find the same comment', async () => {
      const post = await commented(
        (await publish({ content: 'C5 post', channelIds: [sandbox], firstComment: 'C5 comment' })).id,
      );
      const [target] = await t.dataSource.query(`SELECT id, publication FROM post_targets WHERE post_id = $1`, [
        post.id,
      ]);
      // As if the worker died after the network accepted the comment but before its outcome was
      // recorded: the comment is pending again, held by a dead job's expired claim.
      await t.dataSource.query(
        `UPDATE post_targets SET first_comment_status = 'pending', first_comment_platform_id = NULL,
                first_comment_url = NULL, first_comment_claim_job_id = 'dead-job',
                first_comment_claimed_until = now() - interval '1 second'
          WHERE id = $1`,
        [target.id],
      );
      // The reconciler enqueues it, and a duplicate job of the same attempt is a no-op.
      await t.app.get(PublishReconcileJob).reconcile();
      await t.app
        .get(FirstCommentQueue)
        .enqueue([{ id: target.id, publication: target.publication, attempts: 1, dueAt: null }]);
      const again = await commented(post.id);
      expect(again.targets[0].firstComment).toEqual(
        expect.objectContaining({ status: 'published', platformId: post.targets[0].firstComment.platformId }),
      );
      const rows = await t.dataSource.query(`SELECT content FROM sandbox_posts WHERE content LIKE 'C5%'`);
      expect(rows).toHaveLength(2);
      const [publishRow] = await t.dataSource.query(`SELECT attempts, status FROM post_targets WHERE id = $1`, [
        target.id,
      ]);
      expect(publishRow).toEqual({ attempts: 1, status: 'published' });
    });

    it('a failed target keeps its comment pending; PUT publishes both again with the new comment', async () => {
      const failed = await settled(
        (await publish({ content: 'C6 post #fail-permanent', channelIds: [sandbox], firstComment: 'C6 comment' })).id,
      );
      expect(failed.status).toBe('failed');
      expect(failed.targets[0].firstComment).toEqual(expect.objectContaining({ status: 'pending' }));
      const put = await t.request('PUT', `/api/posts/${failed.id}`, {
        key,
        body: { content: 'C6 post again', channelIds: [sandbox], firstComment: 'C6 comment again', publishNow: true },
      });
      expect(put.status).toBe(200);
      const post = await commented(failed.id);
      expect(post.status).toBe('published');
      expect(post.targets[0].firstComment).toEqual(
        expect.objectContaining({ content: 'C6 comment again', status: 'published' }),
      );
    });
  });

  describe('networks that reply to their own posts', () => {
    it('Mastodon: a status with in_reply_to_id the post; a 503 retries the comment alone', async () => {
      const since = Date.now();
      mastodon.failNext(1, 503, MASTODON_ROUTES.createStatus, carries('M comment'));
      const post = await commented(
        (await publish({ content: 'M post', channelIds: [masto], firstComment: 'M comment' })).id,
      );
      expect(post.status).toBe('published');
      const root = mastodon.statuses.find((s) => s.text === 'M post')!;
      const comments = mastodon.statuses.filter((s) => s.text === 'M comment');
      expect(comments).toHaveLength(1);
      expect(comments[0].inReplyToId).toBe(root.id);
      expect(post.targets[0].firstComment).toEqual(
        expect.objectContaining({ status: 'published', platformId: comments[0].id }),
      );
      // The post once, the comment twice (one refusal).
      expect(mastodon.requests.filter((r) => r.route === MASTODON_ROUTES.createStatus && r.at >= since)).toHaveLength(
        3,
      );
    });

    it('Bluesky: a reply whose root and parent are the post (URI and CID kept on the target)', async () => {
      const post = await commented(
        (await publish({ content: 'B post', channelIds: [bsky], firstComment: 'B comment' })).id,
      );
      expect(post.status).toBe('published');
      const root = bluesky.posts.find((p) => p.record.text === 'B post')!;
      const comment = bluesky.posts.find((p) => p.record.text === 'B comment')!;
      const ref = { uri: root.uri, cid: root.cid };
      expect(comment.record.reply).toEqual({ root: ref, parent: ref });
      expect(post.targets[0].firstComment).toEqual(
        expect.objectContaining({ status: 'published', platformId: comment.uri }),
      );
      expect(bluesky.posts.filter((p) => p.record.text === 'B comment')).toHaveLength(1);
    });

    it('X: a reply with in_reply_to_tweet_id the post; an answer lost is found again, not posted twice', async () => {
      x.failAfterCreateNext(503, (text) => text === 'X comment');
      const post = await commented(
        (await publish({ content: 'X post', channelIds: [xChannel], firstComment: 'X comment' })).id,
      );
      expect(post.status).toBe('published');
      const root = x.tweets.find((tw) => tw.text === 'X post')!;
      const comments = x.tweets.filter((tw) => tw.text === 'X comment');
      expect(comments).toHaveLength(1);
      expect(comments[0].inReplyToId).toBe(root.id);
      expect(post.targets[0].firstComment).toEqual(
        expect.objectContaining({ status: 'published', platformId: comments[0].id }),
      );
      expect(x.requests.filter((r) => r.route === X_ROUTES.createTweet).length).toBeGreaterThanOrEqual(2);
    });
  });

  describe('validation', () => {
    const validate = async (body: Record<string, unknown>) =>
      (await t.request('POST', '/api/posts/validate', { key, body })).body;

    it('refuses a first comment on a channel that takes none, naming the field', async () => {
      const res = await validate({ content: 'V1', channelIds: [noComments], firstComment: 'nope' });
      expect(res.valid).toBe(false);
      expect(res.problems).toEqual([
        expect.objectContaining({
          channelId: noComments,
          field: 'firstComment',
          message: expect.stringMatching(/first comment/),
        }),
      ]);
      const override = await validate({
        content: 'V1',
        channelIds: [sandbox, noComments],
        targets: [{ channelId: noComments, firstComment: 'nope' }],
      });
      expect(override.problems).toEqual([expect.objectContaining({ field: 'targets[0].firstComment' })]);
      const created = await t.request('POST', '/api/posts', {
        key,
        body: { content: 'V1', channelIds: [noComments], firstComment: 'nope', publishNow: true },
      });
      expect(created.status).toBe(400);
      expect(created.body.details).toEqual([expect.objectContaining({ field: 'firstComment' })]);
    });

    it("checks the comment's length against the network's text limit", async () => {
      const res = await validate({ content: 'V2', channelIds: [masto, sandbox], firstComment: 'a'.repeat(501) });
      expect(res.problems).toEqual([
        expect.objectContaining({ channelId: masto, field: 'firstComment' }),
        expect.objectContaining({ channelId: sandbox, field: 'firstComment' }),
      ]);
      expect((await validate({ content: 'V2', channelIds: [masto], firstComment: 'a'.repeat(500) })).valid).toBe(true);
    });

    it('lists firstComment in each channel and provider limits', async () => {
      const channels = (await t.request('GET', '/api/channels', { key })).body.data as Array<{
        id: string;
        limits: { firstComment: boolean };
      }>;
      expect(channels.find((c) => c.id === sandbox)!.limits.firstComment).toBe(true);
      expect(channels.find((c) => c.id === noComments)!.limits.firstComment).toBe(false);
      const providers = (await t.request('GET', '/api/providers', { key })).body.data as Array<{
        id: string;
        limits: { firstComment: boolean };
      }>;
      expect(providers.find((p) => p.id === 'mastodon')!.limits.firstComment).toBe(true);
    });
  });
});
