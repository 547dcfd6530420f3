import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { RequiredScope } from '../auth/scope.decorator';
import { WorkspaceId } from '../auth/workspace.decorator';
import { ApiErrors } from '../common/decorators/api-errors.decorator';
import { Idempotent } from '../common/decorators/idempotent.decorator';
import { IdParamDto } from '../common/id-param.dto';
import { ApiPageResponse, Page, PageQueryDto } from '../common/pagination/pagination';
import { ConnectLinksService } from './connect-links.service';
import { ConnectLinkDto, CreatedConnectLinkDto } from './dto/connect-link.dto';
import { CreateConnectLinkDto } from './dto/create-connect-link.dto';

/**
 * `/api/connect-links`: hosted pages where someone without an account here connects their own social
 * accounts to the workspace (docs/adr/0055). The page itself is `/connect/{token}`
 * (src/console/connect-page.controller.ts).
 */
@ApiTags('Connect links')
@Controller('connect-links')
export class ConnectLinksController {
  constructor(private readonly links: ConnectLinksService) {}

  @Post()
  @RequiredScope('channels:manage')
  @Idempotent()
  @ApiOperation({
    summary: 'Make a hosted connect link',
    description:
      'A page on PUBLIC_BASE_URL, opened without signing in, listing the allowed networks: choosing one runs its ' +
      'OAuth flow or shows its credentials form (the sandbox: one form). Each channel connected belongs to this ' +
      'workspace, emits `channel.connected`, and sends the browser (303) to `redirectUrl` with `connectLinkId`, ' +
      '`status=connected` and `channelId`; a failure sends `status=error&error=<code>`. A revoked or expired ' +
      'link shows a page saying so (410) and connects nothing. `url` is returned only here.',
  })
  @ApiCreatedResponse({ type: CreatedConnectLinkDto })
  @ApiErrors(400)
  async createConnectLink(
    @WorkspaceId() workspaceId: string,
    @Body() body: CreateConnectLinkDto,
  ): Promise<CreatedConnectLinkDto> {
    const { link, url } = await this.links.create(workspaceId, body);
    return { ...ConnectLinkDto.from(link), url };
  }

  @Get()
  @RequiredScope('channels:read')
  @ApiOperation({ summary: 'List connect links', description: 'Newest first, every status.' })
  @ApiPageResponse(ConnectLinkDto)
  @ApiErrors(400)
  async listConnectLinks(
    @WorkspaceId() workspaceId: string,
    @Query() query: PageQueryDto,
  ): Promise<Page<ConnectLinkDto>> {
    const page = await this.links.list(workspaceId, query);
    return { data: page.data.map((l) => ConnectLinkDto.from(l)), nextCursor: page.nextCursor };
  }

  @Get(':id')
  @RequiredScope('channels:read')
  @ApiOperation({ summary: 'Get one connect link' })
  @ApiOkResponse({ type: ConnectLinkDto })
  @ApiErrors(400, 404)
  async getConnectLink(@WorkspaceId() workspaceId: string, @Param() { id }: IdParamDto): Promise<ConnectLinkDto> {
    return ConnectLinkDto.from(await this.links.get(workspaceId, id));
  }

  @Delete(':id')
  @RequiredScope('channels:manage')
  @HttpCode(204)
  @ApiOperation({
    summary: 'Revoke a connect link',
    description:
      'At once: the page answers 410 and an authorization started from it connects nothing. Channels already ' +
      'connected stay. Repeating it is a no-op.',
  })
  @ApiNoContentResponse({ description: 'Revoked' })
  @ApiErrors(400, 404)
  async revokeConnectLink(@WorkspaceId() workspaceId: string, @Param() { id }: IdParamDto): Promise<void> {
    await this.links.revoke(workspaceId, id);
  }
}
