import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ChannelsService } from '../../src/channels/channels.service';
import { ChannelCredentialsService } from '../../src/oauth/channel-credentials.service';
import { YouTubeFake } from '../fakes/youtube.fake';
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
      scope: 'https://www.googleapis.com/auth/youtube.upload https://www.googleapis.com/auth/youtube.readonly',
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

  it('publishes the video with its options and thumbnail, shown on the target', async () => {
    const [video, thumbnail] = [await uploadVideo(), await h.uploadPng(64, 36)];
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
    } finally {
      yt.restoreQuota();
    }
  });
});
