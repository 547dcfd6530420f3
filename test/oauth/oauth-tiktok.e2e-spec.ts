import { ChannelsService } from '../../src/channels/channels.service';
import { ChannelCredentialsService } from '../../src/oauth/channel-credentials.service';
import { TikTokFake } from '../fakes/tiktok.fake';
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
