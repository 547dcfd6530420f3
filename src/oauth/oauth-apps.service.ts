import { Inject, Injectable } from '@nestjs/common';
import { ConfigType } from '@nestjs/config';
import { appConfig } from '../config';
import { ProviderRegistry } from '../providers/provider.registry';
import type { OAuthHosts, OAuthSpec } from '../providers/social-provider.interface';

/** An OAuth network with this server's app registration. */
export interface OAuthApp {
  plugin: ReturnType<ProviderRegistry['plugin']>;
  spec: OAuthSpec;
  hosts: OAuthHosts;
  /** The scopes asked for: the configured override, else the plugin's. */
  scopes: readonly string[];
  clientId: string;
  clientSecret: string;
  /** Our callback, registered with the network: `{PUBLIC_BASE_URL}/api/oauth/{provider}/callback`. */
  callbackUrl: string;
}

/** The OAuth networks and whether this server has app credentials for them. */
@Injectable()
export class OAuthAppsService {
  constructor(
    private readonly providers: ProviderRegistry,
    @Inject(appConfig.KEY) private readonly app: ConfigType<typeof appConfig>,
  ) {}

  /** Every OAuth network with app credentials on this server. */
  all(): OAuthApp[] {
    return this.providers.ids().flatMap((id) => this.find(id) ?? []);
  }

  /** The app of an OAuth network, or null when it is not one or has no app credentials here. */
  find(providerId: string): OAuthApp | null {
    if (!this.providers.has(providerId)) return null;
    const plugin = this.providers.plugin(providerId);
    const client = this.providers.oauthClient(providerId);
    if (plugin.connectKind !== 'oauth' || !plugin.oauth || !client?.clientId || !client.clientSecret) return null;
    return {
      plugin,
      spec: plugin.oauth,
      hosts: {
        auth: client.authBaseUrl ?? plugin.oauth.defaultHosts.auth,
        api: client.apiBaseUrl ?? plugin.oauth.defaultHosts.api,
        token: client.tokenBaseUrl ?? plugin.oauth.defaultHosts.token,
        settings: this.providers.settings(providerId),
      },
      scopes: client.scopes ?? plugin.oauth.scopes,
      clientId: client.clientId,
      clientSecret: client.clientSecret,
      callbackUrl: `${this.app.publicBaseUrl}/api/oauth/${providerId}/callback`,
    };
  }
}
