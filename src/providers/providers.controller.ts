import { Controller, Get, Inject } from '@nestjs/common';
import { ConfigType } from '@nestjs/config';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { oauthConfig } from '../config';
import { ProviderListDto } from './dto/provider.dto';
import { ProviderRegistry } from './provider.registry';

@ApiTags('Providers')
@Controller('providers')
export class ProvidersController {
  constructor(
    private readonly registry: ProviderRegistry,
    @Inject(oauthConfig.KEY) private readonly oauth: ConfigType<typeof oauthConfig>,
  ) {}

  @Get()
  @ApiOperation({
    summary: 'List the social networks this server can connect',
    description:
      'How each connects (`credentials` or `oauth`), whether it is enabled here (an OAuth network needs its ' +
      'client id and secret configured) and its typical limits.',
  })
  @ApiOkResponse({ type: ProviderListDto })
  listProviders(): ProviderListDto {
    return {
      data: this.registry.ids().map((id) => {
        const plugin = this.registry.plugin(id);
        const client = this.oauth.clients[id];
        return {
          id,
          name: plugin.displayName,
          connect: plugin.connectKind,
          enabled: plugin.connectKind !== 'oauth' || Boolean(plugin.oauth && client?.clientId && client.clientSecret),
          limits: { ...plugin.defaultLimits, supportedMimeTypes: [...plugin.defaultLimits.supportedMimeTypes] },
        };
      }),
    };
  }
}
