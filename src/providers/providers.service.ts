import { Inject, Injectable } from '@nestjs/common';
import { ConfigType } from '@nestjs/config';
import { oauthConfig } from '../config';
import { ProviderDto } from './dto/provider.dto';
import { ProviderRegistry } from './provider.registry';

/**
 * The networks this server can connect, as `GET /api/providers` lists them: read from the plugin
 * registry, so a front end (the console's Channels page among them) never keeps a list of its own.
 */
@Injectable()
export class ProvidersService {
  constructor(
    private readonly registry: ProviderRegistry,
    @Inject(oauthConfig.KEY) private readonly oauth: ConfigType<typeof oauthConfig>,
  ) {}

  /** Every registered network, in registration order. */
  list(): ProviderDto[] {
    return this.registry.ids().map((id) => {
      const plugin = this.registry.plugin(id);
      const client = this.oauth.clients[id];
      return {
        id,
        name: plugin.displayName,
        connect: plugin.connectKind,
        enabled: plugin.connectKind !== 'oauth' || Boolean(plugin.oauth && client?.clientId && client.clientSecret),
        limits: { ...plugin.defaultLimits, supportedMimeTypes: [...plugin.defaultLimits.supportedMimeTypes] },
      };
    });
  }
}
