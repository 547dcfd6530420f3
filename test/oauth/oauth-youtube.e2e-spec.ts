import { ChannelsService } from '../../src/channels/channels.service';
import { ChannelCredentialsService } from '../../src/oauth/channel-credentials.service';
import { YouTubeFake } from '../fakes/youtube.fake';
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
