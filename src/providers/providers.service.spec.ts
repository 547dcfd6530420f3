import { OutboundHttp } from '../common/http/outbound-http';
import { mastodonPlugin } from './mastodon/mastodon.provider';
import { defineProvider } from './provider-plugin';
import { oauthAppSettings } from './provider-settings';
import { ProviderRegistry } from './provider.registry';
import { ProvidersService } from './providers.service';
import { xPlugin } from './x/x.provider';

describe('ProvidersService', () => {
  const http = new OutboundHttp({ allowPrivate: false });
  afterAll(() => http.close());
  // An OAuth network whose client id is not `<ID>_CLIENT_ID` (TikTok calls it a client key).
  const keyed = defineProvider({
    ...xPlugin,
    settings: oauthAppSettings('X', {
      clientId: { env: 'X_CLIENT_KEY', description: 'the client key' },
      clientSecret: 'the client secret',
    }),
  });
  const service = (env: Record<string, string>) =>
    new ProvidersService(
      new ProviderRegistry([mastodonPlugin, keyed], { http, resolve: () => undefined as never }, env),
    );

  it('lists an OAuth network enabled once the variables its plugin declares are set', () => {
    expect(
      service({})
        .list()
        .map((p) => [p.id, p.enabled]),
    ).toEqual([
      ['mastodon', true],
      ['x', false],
    ]);
    expect(service({ X_CLIENT_ID: 'id', X_CLIENT_SECRET: 's' }).list()[1].enabled).toBe(false);
    expect(service({ X_CLIENT_KEY: 'key', X_CLIENT_SECRET: 's' }).list()[1].enabled).toBe(true);
  });

  it('names the variables that enable a network as its plugin declares them', () => {
    expect(service({}).appSettings('x')).toEqual(['X_CLIENT_KEY', 'X_CLIENT_SECRET']);
    expect(service({}).appSettings('mastodon')).toEqual([]);
  });
});
