import { Injectable } from '@nestjs/common';
import { ProviderDto } from './dto/provider.dto';
import { ProviderRegistry } from './provider.registry';
import { VideoLimitsDto } from './dto/video-limits.dto';
import { apiVersionOf } from './api-version';

/**
 * The networks this server can connect, as `GET /api/providers` lists them: read from the plugin
 * registry, so a front end (the console's Channels page among them) never keeps a list of its own.
 */
@Injectable()
export class ProvidersService {
  constructor(private readonly registry: ProviderRegistry) {}

  /** Every registered network, in registration order. */
  list(): ProviderDto[] {
    const version = (id: string) => apiVersionOf(this.registry.plugin(id).apiVersion, this.registry.settings(id));
    return this.registry.ids().map((id) => {
      const plugin = this.registry.plugin(id);
      const client = this.registry.oauthClient(id);
      return {
        id,
        name: plugin.displayName,
        connect: plugin.connectKind,
        apiVersion: version(id),
        apiSunset: plugin.apiVersion.sunset?.(version(id)) ?? null,
        enabled: plugin.connectKind !== 'oauth' || Boolean(plugin.oauth && client?.clientId && client.clientSecret),
        limits: {
          ...plugin.defaultLimits,
          supportedMimeTypes: [...plugin.defaultLimits.supportedMimeTypes],
          video: VideoLimitsDto.of(plugin.defaultLimits),
        },
        optionsSchema: plugin.optionsSchema ? structuredClone(plugin.optionsSchema) : null,
      };
    });
  }

  /**
   * The variables that enable an OAuth network on this server: its app's client id and secret, as
   * the plugin declares them (empty for networks connected with credentials).
   */
  appSettings(id: string): string[] {
    const settings = this.registry.plugin(id).settings;
    return this.registry.plugin(id).connectKind === 'oauth' && settings?.clientId && settings.clientSecret
      ? [settings.clientId.env, settings.clientSecret.env]
      : [];
  }
}
