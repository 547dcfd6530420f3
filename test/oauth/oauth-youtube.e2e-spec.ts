import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ChannelsService } from '../../src/channels/channels.service';
import { ChannelCredentialsService } from '../../src/oauth/channel-credentials.service';
import { YOUTUBE_ROUTES, YouTubeFake } from '../fakes/youtube.fake';
import { MediaClient } from '../media/media-support';
import { waitFor } from '../support/publishing-env';
import { TestApp } from '../support/test-app';
import { PUBLIC_BASE_URL, useOAuthApp } from './oauth-harness';

const MAIN = { id: 'UCmainChannel0000000000a', title: 'Main Channel', customUrl: '@main' };
const BRAND = { id: 'UCbrandChannel000000000b', title: 'Brand Channel', customUrl: '@brand' };

describe('OAuth connection of YouTube (against the fake)', () => {
  const yt = new YouTubeFake({ accounts: [{ sub: '100000000000000000042', channels: [MAIN, BRAND] }] });
  const h = useOAuthApp('youtube', yt);
  let t: TestApp;
  beforeAll(() => ({ t } = h));

  /** The channel's credentials as the publisher opens them: refreshed first when expiring. */
  const openCredentials = async (channelId: string) => {
    const channel = (await t.app.get(ChannelsService).findByIds([channelId])).get(channelId)!;
    return t.app.get(ChannelCredentialsService).open(channel);
  };

  it("asks Google for offline access, with consent on every connection, and YouTube's scopes", async () => {
    const res = await h.start();
    expect(res.status).toBe(201);
    const url = new URL(res.body.authorizationUrl);
    expect(url.origin + url.pathname).toBe(`${yt.baseUrl}/o/oauth2/v2/auth`);
    expect(Object.fromEntries(url.searchParams)).toEqual({
      response_type: 'code',
      client_id: yt.clientId,
      redirect_uri: `${PUBLIC_BASE_URL}/api/oauth/youtube/callback`,
      scope:
        'https://www.googleapis.com/auth/youtube.upload https://www.googleapis.com/auth/youtube.readonly https://www.googleapis.com/auth/youtube.force-ssl',
      state: res.body.state,
      code_challenge: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      code_challenge_method: 'S256',
      access_type: 'offline',
      prompt: 'consent',
      include_granted_scopes: 'true',
    });
  });

  it('lets the caller choose among the channels of the Google account, and stores the chosen channel id', async () => {
    const channels = await h.channelCount();
    const connectionId = (await h.authorize()).get('connectionId')!;
    expect(await h.channelCount()).toBe(channels);
    const pending = await h.getConnection(connectionId);
    expect(pending.body.targets).toEqual([
      expect.objectContaining({
        id: MAIN.id,
        name: 'Main Channel',
        handle: '@main',
        profileUrl: `https://www.youtube.com/channel/${MAIN.id}`,
      }),
      expect.objectContaining({ id: BRAND.id, name: 'Brand Channel', handle: '@brand' }),
    ]);
    const chosen = await h.choose(connectionId, [BRAND.id]);
    expect(chosen.status).toBe(201);
    const channelId = chosen.body.data[0].id as string;
    const stored = await h.storedCredentials(channelId);
    expect(stored).toEqual(
      expect.objectContaining({ channelId: BRAND.id, refreshToken: expect.stringMatching(/^1\/\//) }),
    );
    expect(yt.codeExchanges.at(-1)).toEqual({ refreshToken: true });
  });

  it('connects directly when the account has one channel, and refuses an account without any', async () => {
    yt.accounts[0].channels = [MAIN];
    try {
      const query = await h.authorize();
      expect(query.get('channelId')).toMatch(/^[0-9a-f-]{36}$/);
      yt.accounts[0].channels = [];
      const refused = await h.authorize();
      expect(refused.get('error')).toBe('account_failed');
    } finally {
      yt.accounts[0].channels = [MAIN, BRAND];
    }
  });

  it('keeps the stored refresh token when a reconnect answers without one, and refreshes with it', async () => {
    yt.accounts[0].channels = [MAIN];
    try {
      const channelId = await h.connect();
      const first = (await h.storedCredentials(channelId)).refreshToken as string;
      expect(first).toMatch(/^1\/\//);

      yt.withholdRefreshTokens(1);
      expect(await h.connect()).toBe(channelId);
      expect(yt.codeExchanges.at(-1)).toEqual({ refreshToken: false });
      const after = await h.storedCredentials(channelId);
      expect(after.refreshToken).toBe(first);

      // The kept token still renews the access token when it expires.
      await h.expireStoredToken(channelId);
      const opened = await openCredentials(channelId);
      expect(opened).toEqual(expect.objectContaining({ refreshToken: first, channelId: MAIN.id }));
      expect(Date.parse(opened!.expiresAt as string)).toBeGreaterThan(Date.now());
    } finally {
      yt.accounts[0].channels = [MAIN, BRAND];
    }
  });
});

describe('Publishing to YouTube through the API (against the fake)', () => {
  const yt = new YouTubeFake({ processingPolls: 1 });
  const h = useOAuthApp('youtube', yt);
  let t: TestApp;
  let channelId: string;
  beforeAll(async () => {
    ({ t } = h);
    channelId = await h.connect();
  });

  const uploadVideo = async (): Promise<string> => {
    const bytes = readFileSync(join(__dirname, '../fixtures/video/vertical-9x16.mp4'));
    const client = new MediaClient(t, h.key);
    const init = await client.initialize({ filename: 'v.mp4', mimeType: 'video/mp4', size: bytes.length });
    expect((await client.chunk(init.body.id, 0, bytes)).status).toBe(200);
    expect((await client.finalize(init.body.id)).body.status).toBe('ready');
    return init.body.id as string;
  };
  const create = (body: Record<string, unknown>) => t.request('POST', '/api/posts', { key: h.key, body });

  it('refuses a post without madeForKids, at the target when it has one and at targets when it has none', async () => {
    const video = await uploadVideo();
    const none = await create({ content: 'x', mediaIds: [video], channelIds: [channelId], publishNow: true });
    expect(none.status).toBe(400);
    expect(none.body.details).toContainEqual({
      field: 'targets',
      message: expect.stringContaining('options.madeForKids is required'),
    });
    const wrong = await create({
      content: 'x',
      mediaIds: [video],
      channelIds: [channelId],
      targets: [{ channelId, options: { madeForKids: false, privacy: 'unlisted', publishAt: '2099-01-01T00:00:00Z' } }],
      publishNow: true,
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body.details).toEqual([
      {
        field: 'targets[0].options.publishAt',
        message: expect.stringContaining('YouTube schedules only public videos'),
      },
    ]);
  });

  it('publishes the video with its options and thumbnail, shown on the target, after polling its processing', async () => {
    const [video, thumbnail] = [await uploadVideo(), await h.uploadPng(64, 36)];
    const reads = yt.statusReads();
    const options = { madeForKids: false, title: 'Fixture video', privacy: 'unlisted', tags: ['fixture'] };
    const id = await h.publishNow(channelId, 'A description', [video, thumbnail], {
      targets: [{ channelId, options }],
    });
    const post = await h.settled(id);
    expect(post.status).toBe('published');
    expect(post.targets[0]).toEqual(
      expect.objectContaining({ options, url: expect.stringMatching(/^https:\/\/www\.youtube\.com\/watch\?v=/) }),
    );
    const onYouTube = yt.videos.find((v) => v.id === post.targets[0].platformPostId)!;
    expect(onYouTube.snippet).toEqual({ title: 'Fixture video', description: 'A description', tags: ['fixture'] });
    expect(onYouTube.status.privacyStatus).toBe('unlisted');
    expect(onYouTube.thumbnail).toEqual(expect.objectContaining({ contentType: 'image/png' }));
    // One read answered "uploaded", the delayed poll "processed": polls are not attempts.
    expect(yt.statusReads() - reads).toBe(2);
    expect(post.targets[0].attempts).toBe(1);
  });

  it('resumes an upload interrupted past one attempt on the retry, in the same session: one video', async () => {
    const video = await uploadVideo();
    const [sessions, videos] = [yt.sessionCount(), yt.videos.length];
    yt.clearRequests();
    yt.interruptNextChunks(4); // more interruptions than one attempt takes
    const post = await h.settled(
      await h.publishNow(channelId, 'Interrupted', [video], {
        targets: [{ channelId, options: { madeForKids: false } }],
      }),
    );
    expect(post.status).toBe('published');
    expect(post.targets[0].attempts).toBe(2);
    expect(yt.sessionCount()).toBe(sessions + 1);
    expect(yt.videos).toHaveLength(videos + 1);
    expect(yt.requests.filter((r) => r.route === YOUTUBE_ROUTES.initiate)).toHaveLength(1);
    // The retry asked the session how far it got before sending the rest.
    expect(
      yt.requests.some(
        (r) => r.route === YOUTUBE_ROUTES.upload && /^bytes \*\//.test(String(r.headers['content-range'])),
      ),
    ).toBe(true);
    const bytes = readFileSync(join(__dirname, '../fixtures/video/vertical-9x16.mp4'));
    expect(yt.videos.at(-1)!.bytes.equals(bytes)).toBe(true);
  });

  it('posts the first comment on the video once it is live, as the channel', async () => {
    const video = await uploadVideo();
    const id = await h.publishNow(channelId, 'With a comment', [video], {
      targets: [{ channelId, options: { madeForKids: false, privacy: 'unlisted' } }],
      firstComment: 'Chapters: 0:00 intro',
    });
    const post = await waitFor(
      () => h.getPost(id),
      (p) => p.status === 'published' && p.targets[0].firstComment?.status !== 'pending',
    );
    const comment = yt.comments.at(-1)!;
    expect(comment).toEqual(
      expect.objectContaining({ videoId: post.targets[0].platformPostId, text: 'Chapters: 0:00 intro' }),
    );
    expect(post.targets[0].firstComment).toEqual(
      expect.objectContaining({
        status: 'published',
        platformId: comment.id,
        url: `https://www.youtube.com/watch?v=${comment.videoId}&lc=${comment.id}`,
      }),
    );
  });

  it("reads a video's views, likes and comments through the analytics endpoints", async () => {
    const video = await uploadVideo();
    const id = await h.publishNow(channelId, 'Counted', [video], {
      targets: [{ channelId, options: { madeForKids: false } }],
    });
    const post = await h.settled(id);
    expect(post.status).toBe('published');
    yt.setCounts(post.targets[0].platformPostId, { views: 1234, likes: 56, replies: 7 });
    const analytics = await h.analytics(id);
    expect(analytics.targets[0].metrics).toEqual({
      likes: 56,
      reposts: null,
      replies: 7,
      quotes: null,
      impressions: 1234,
    });
  });

  it('fails the target with VIDEO_PROCESSING_FAILED, not retried, when YouTube cannot process the video', async () => {
    const video = await uploadVideo();
    const sessions = yt.sessionCount();
    yt.failProcessingNext('codec');
    const post = await h.settled(
      await h.publishNow(channelId, 'Broken', [video], { targets: [{ channelId, options: { madeForKids: false } }] }),
    );
    expect(post.targets[0]).toEqual(
      expect.objectContaining({
        status: 'failed',
        attempts: 1,
        error: { code: 'VIDEO_PROCESSING_FAILED', message: expect.stringMatching(/could not process .*codec/) },
      }),
    );
    expect(yt.sessionCount()).toBe(sessions + 1);
  });

  it('holds a target until the quota resets when YouTube says the quota is spent, with the reason shown', async () => {
    const video = await uploadVideo();
    yt.exhaustQuota();
    try {
      const id = await h.publishNow(channelId, 'Quota', [video], {
        targets: [{ channelId, options: { madeForKids: false } }],
      });
      const post = await waitFor(
        () => h.getPost(id),
        (p) => p.targets[0].attempts >= 1 && p.targets[0].error !== null,
      );
      expect(post.targets[0]).toEqual(
        expect.objectContaining({
          status: 'pending',
          error: {
            code: 'PROVIDER_RATE_LIMITED',
            message: expect.stringMatching(/quota exhausted .*midnight Pacific Time/),
          },
        }),
      );
      const [row] = await t.dataSource.query('SELECT due_at FROM post_targets WHERE post_id = $1', [id]);
      expect(new Date(row.due_at).getTime()).toBeGreaterThan(Date.now() + 60_000);

      // Known spent: the next upload is refused before any call to YouTube.
      const initiations = yt.requests.filter((r) => r.route === YOUTUBE_ROUTES.initiate).length;
      const next = await h.publishNow(channelId, 'Quota again', [video], {
        targets: [{ channelId, options: { madeForKids: false } }],
      });
      const refused = await waitFor(
        () => h.getPost(next),
        (p) => p.targets[0].attempts >= 1 && p.targets[0].error !== null,
      );
      expect(refused.targets[0].error).toEqual({
        code: 'PROVIDER_RATE_LIMITED',
        message: expect.stringMatching(/quota exhausted .*midnight Pacific Time/),
      });
      expect(yt.requests.filter((r) => r.route === YOUTUBE_ROUTES.initiate)).toHaveLength(initiations);
    } finally {
      yt.restoreQuota();
    }
  });
});
