import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ChannelsService } from '../../src/channels/channels.service';
import { ChannelCredentialsService } from '../../src/oauth/channel-credentials.service';
import { TIKTOK_ROUTES, TikTokFake } from '../fakes/tiktok.fake';
import { TINY_JPEG } from '../providers/media.fixture';
import { MediaClient } from '../media/media-support';
import { TestApp } from '../support/test-app';
import { PUBLIC_BASE_URL, useOAuthApp } from './oauth-harness';

describe('OAuth connection of TikTok (against the fake)', () => {
  const tt = new TikTokFake();
  const h = useOAuthApp('tiktok', tt);
  let t: TestApp;
  beforeAll(() => ({ t } = h));

  it("sends TikTok's client_key and comma-separated scopes", async () => {
    const res = await h.start();
    const url = new URL(res.body.authorizationUrl);
    expect(url.origin + url.pathname).toBe(`${tt.baseUrl}/v2/auth/authorize/`);
    expect(Object.fromEntries(url.searchParams)).toEqual({
      response_type: 'code',
      client_key: tt.clientKey,
      redirect_uri: `${PUBLIC_BASE_URL}/api/oauth/tiktok/callback`,
      scope: 'user.info.basic,video.publish,video.list',
      state: res.body.state,
      code_challenge: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      code_challenge_method: 'S256',
    });
  });

  it('connects the creator, and refreshes the token with client_key (TikTok rotates refresh tokens)', async () => {
    const channelId = await h.connect();
    const channel = await t.request('GET', `/api/channels/${channelId}`, { key: h.key });
    expect(channel.body).toEqual(
      expect.objectContaining({
        provider: 'tiktok',
        handle: 'contract.tiktok',
        profileUrl: 'https://www.tiktok.com/@contract.tiktok',
      }),
    );
    const stored = await h.storedCredentials(channelId);
    expect(stored).toEqual(expect.objectContaining({ openId: tt.creators[0].openId, username: 'contract.tiktok' }));
    await h.expireStoredToken(channelId);
    const row = (await t.app.get(ChannelsService).findByIds([channelId])).get(channelId)!;
    const opened = await t.app.get(ChannelCredentialsService).open(row);
    expect(opened!.refreshToken).not.toBe(stored.refreshToken);
    expect(Date.parse(opened!.expiresAt as string)).toBeGreaterThan(Date.now());
  });
});

describe('Publishing to TikTok through the API (against the fake)', () => {
  const tt = new TikTokFake({ processingPolls: 2 });
  // Reachable: TikTok pulls photos from our signed media URLs.
  const h = useOAuthApp('tiktok', tt, { reachable: true });
  let t: TestApp;
  let channelId: string;
  beforeAll(async () => {
    ({ t } = h);
    channelId = await h.connect();
  });
  beforeEach(() => {
    tt.audited = true;
    Object.assign(tt.creators[0], { privateAccount: false, privacyLevelOptions: ['PUBLIC_TO_EVERYONE', 'SELF_ONLY'] });
  });

  const uploadVideo = async (): Promise<string> => {
    const bytes = readFileSync(join(__dirname, '../fixtures/video/vertical-9x16.mp4'));
    const client = new MediaClient(t, h.key);
    const init = await client.initialize({ filename: 'v.mp4', mimeType: 'video/mp4', size: bytes.length });
    expect((await client.chunk(init.body.id, 0, bytes)).status).toBe(200);
    expect((await client.finalize(init.body.id)).body.status).toBe('ready');
    return init.body.id as string;
  };

  const uploadJpeg = async (): Promise<string> => {
    const client = new MediaClient(t, h.key);
    const init = await client.initialize({ filename: 'p.jpeg', mimeType: 'image/jpeg', size: TINY_JPEG.length });
    expect((await client.chunk(init.body.id, 0, TINY_JPEG)).status).toBe(200);
    expect((await client.finalize(init.body.id)).body.status).toBe('ready');
    return init.body.id as string;
  };

  it('refuses a post without a privacy level, or with an unknown one, naming the allowed values', async () => {
    const video = await uploadVideo();
    const post = (targets?: unknown[]) =>
      t.request('POST', '/api/posts', {
        key: h.key,
        body: { content: 'x', mediaIds: [video], channelIds: [channelId], targets, publishNow: true },
      });
    const none = await post();
    expect(none.status).toBe(400);
    expect(none.body.details).toEqual([
      {
        field: 'targets',
        message: expect.stringContaining(
          'options.privacyLevel is required (TikTok has the creator choose who can watch, never the app): one of PUBLIC_TO_EVERYONE',
        ),
      },
    ]);
    const wrong = await post([{ channelId, options: { privacyLevel: 'EVERYONE' } }]);
    expect(wrong.status).toBe(400);
    expect(wrong.body.details).toEqual([
      {
        field: 'targets[0].options.privacyLevel',
        message: expect.stringContaining(
          'must be one of PUBLIC_TO_EVERYONE, MUTUAL_FOLLOW_FRIENDS, FOLLOWER_OF_CREATOR, SELF_ONLY',
        ),
      },
    ]);
  });

  it('publishes the video once TikTok reports PUBLISH_COMPLETE, its status polled by delayed jobs', async () => {
    const video = await uploadVideo();
    const reads = tt.statusReads();
    const options = { privacyLevel: 'PUBLIC_TO_EVERYONE', disableDuet: true };
    const id = await h.publishNow(channelId, 'Fixture on TikTok', [video], { targets: [{ channelId, options }] });
    const post = await h.settled(id);
    expect(post.status).toBe('published');
    const onTikTok = tt.posts.find((p) => p.postId === post.targets[0].platformPostId)!;
    expect(onTikTok.postInfo).toEqual(
      expect.objectContaining({ title: 'Fixture on TikTok', privacy_level: 'PUBLIC_TO_EVERYONE', disable_duet: true }),
    );
    expect(post.targets[0].url).toBe(`https://www.tiktok.com/@contract.tiktok/video/${onTikTok.postId}`);
    // Two reads answered "processing", the third "complete"; the polls were not attempts.
    expect(tt.statusReads() - reads).toBe(3);
    expect(post.targets[0].attempts).toBe(1);
    expect(post.targets[0].options).toEqual(options);
  });

  it('resends the chunks an interrupted upload lost on the retry, under the same publish id: one post', async () => {
    const video = await uploadVideo();
    const posts = tt.posts.length;
    tt.clearRequests();
    tt.interruptNextChunks(4); // more interruptions than one attempt takes
    const post = await h.settled(
      await h.publishNow(channelId, 'Interrupted', [video], {
        targets: [{ channelId, options: { privacyLevel: 'PUBLIC_TO_EVERYONE' } }],
      }),
    );
    expect(post.status).toBe('published');
    expect(post.targets[0].attempts).toBe(2);
    expect(tt.posts).toHaveLength(posts + 1);
    expect(tt.requests.filter((r) => r.route === TIKTOK_ROUTES.init)).toHaveLength(1);
    const bytes = readFileSync(join(__dirname, '../fixtures/video/vertical-9x16.mp4'));
    expect(Buffer.concat(tt.posts.at(-1)!.bytes).equals(bytes)).toBe(true);
  });

  it('publishes a photo post: TikTok pulls each photo from its signed URL, with the cover index', async () => {
    const photos = [await uploadJpeg(), await uploadJpeg()];
    const options = { privacyLevel: 'PUBLIC_TO_EVERYONE', title: 'Two photos', photoCoverIndex: 1 };
    const id = await h.publishNow(channelId, 'A carousel', photos, { targets: [{ channelId, options }] });
    const post = await h.settled(id);
    expect(post.status).toBe('published');
    const onTikTok = tt.posts.find((p) => p.postId === post.targets[0].platformPostId)!;
    expect(onTikTok).toEqual(
      expect.objectContaining({
        mediaType: 'PHOTO',
        photoCoverIndex: 1,
        photos: [
          { contentType: 'image/jpeg', bytes: TINY_JPEG.length },
          { contentType: 'image/jpeg', bytes: TINY_JPEG.length },
        ],
      }),
    );
    expect(onTikTok.postInfo).toEqual(
      expect.objectContaining({ title: 'Two photos', description: 'A carousel', privacy_level: 'PUBLIC_TO_EVERYONE' }),
    );
    expect(post.targets[0].url).toBe(`https://www.tiktok.com/@contract.tiktok/photo/${onTikTok.postId}`);
  });

  it('refuses a PNG photo and a cover index past the photos at validation', async () => {
    const [png, jpeg] = [await h.uploadPng(16, 16), await uploadJpeg()];
    const res = await t.request('POST', '/api/posts/validate', {
      key: h.key,
      body: {
        content: 'x',
        mediaIds: [png],
        channelIds: [channelId],
        targets: [{ channelId, options: { privacyLevel: 'SELF_ONLY' } }],
      },
    });
    expect(JSON.stringify(res.body)).toContain('does not accept image/png');
    const cover = await t.request('POST', '/api/posts', {
      key: h.key,
      body: {
        content: 'x',
        mediaIds: [jpeg],
        channelIds: [channelId],
        targets: [{ channelId, options: { privacyLevel: 'SELF_ONLY', photoCoverIndex: 1 } }],
        publishNow: true,
      },
    });
    expect(cover.status).toBe(400);
    expect(cover.body.details).toContainEqual({
      field: 'targets[0].options.photoCoverIndex',
      message: expect.stringContaining("options.photoCoverIndex must name one of the post's 1 photo (0 to 0)"),
    });
  });

  it("reads a post's views, likes, comments and shares through the analytics endpoints", async () => {
    const video = await uploadVideo();
    const id = await h.publishNow(channelId, 'Counted', [video], {
      targets: [{ channelId, options: { privacyLevel: 'PUBLIC_TO_EVERYONE' } }],
    });
    const post = await h.settled(id);
    expect(post.status).toBe('published');
    tt.setCounts(post.targets[0].platformPostId, { views: 900, likes: 80, replies: 6, reposts: 5 });
    const analytics = await h.analytics(id);
    expect(analytics.targets[0].metrics).toEqual({
      likes: 80,
      reposts: 5,
      replies: 6,
      quotes: null,
      impressions: 900,
    });
    expect(tt.requests.filter((r) => r.route === TIKTOK_ROUTES.videoQuery).length).toBeGreaterThanOrEqual(1);
  });

  it('fails at once, without retrying, when the creator lacks the level or the app is not audited', async () => {
    const video = await uploadVideo();
    tt.creators[0].privacyLevelOptions = ['SELF_ONLY'];
    const mismatch = await h.settled(
      await h.publishNow(channelId, 'Not for this creator', [video], {
        targets: [{ channelId, options: { privacyLevel: 'PUBLIC_TO_EVERYONE' } }],
      }),
    );
    expect(mismatch.targets[0]).toEqual(
      expect.objectContaining({
        status: 'failed',
        attempts: 1,
        error: {
          code: 'CONTENT_REJECTED',
          message: expect.stringContaining('must be one of SELF_ONLY for this creator'),
        },
      }),
    );
    tt.creators[0].privacyLevelOptions = ['PUBLIC_TO_EVERYONE', 'SELF_ONLY'];
    tt.audited = false;
    const unaudited = await h.settled(
      await h.publishNow(channelId, 'Unaudited', [video], {
        targets: [{ channelId, options: { privacyLevel: 'PUBLIC_TO_EVERYONE' } }],
      }),
    );
    expect(unaudited.targets[0]).toEqual(
      expect.objectContaining({
        status: 'failed',
        attempts: 1,
        error: { code: 'CONTENT_REJECTED', message: expect.stringContaining('have the TikTok app audited') },
      }),
    );
  });

  it('fails the target with VIDEO_PROCESSING_FAILED and TikTok fail_reason when processing fails, not retried', async () => {
    const video = await uploadVideo();
    tt.failNextPublish('file_format_check_failed');
    const post = await h.settled(
      await h.publishNow(channelId, 'Bad file', [video], {
        targets: [{ channelId, options: { privacyLevel: 'SELF_ONLY' } }],
      }),
    );
    expect(post.targets[0]).toEqual(
      expect.objectContaining({
        status: 'failed',
        attempts: 1,
        error: { code: 'VIDEO_PROCESSING_FAILED', message: expect.stringContaining('file_format_check_failed') },
      }),
    );
  });
});
