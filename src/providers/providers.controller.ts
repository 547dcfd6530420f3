import { RequiredScope } from '../auth/scope.decorator';
import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ProviderListDto } from './dto/provider.dto';
import { ProvidersService } from './providers.service';

@ApiTags('Providers')
@Controller('providers')
export class ProvidersController {
  constructor(private readonly providers: ProvidersService) {}

  @Get()
  @RequiredScope('channels:read')
  @ApiOperation({
    summary: 'List the social networks this server can connect',
    description:
      'How each connects (`credentials` or `oauth`), whether it is enabled here (an OAuth network needs its ' +
      'client id and secret configured) and its typical limits.',
  })
  @ApiOkResponse({ type: ProviderListDto })
  listProviders(): ProviderListDto {
    return { data: this.providers.list() };
  }
}
