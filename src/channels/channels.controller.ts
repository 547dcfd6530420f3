import { RequiredScope } from '../auth/scope.decorator';
import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Post, Query, Res } from '@nestjs/common';
import {
  ApiBody,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { ApiErrors } from '../common/decorators/api-errors.decorator';
import { WorkspaceId } from '../auth/workspace.decorator';
import { IdParamDto } from '../common/id-param.dto';
import { ApiPageResponse, Page } from '../common/pagination/pagination';
import { CHANNEL_OAUTH, ChannelOAuth } from './channel-oauth.port';
import { ChannelsService } from './channels.service';
import { ChannelDto } from './dto/channel.dto';
import { CONNECT_CHANNEL_EXAMPLES, ConnectChannelDto } from './dto/connect-channel.dto';
import { ListChannelsQueryDto } from './dto/list-channels.query.dto';
import { OAuthAuthorizationDto } from './dto/oauth-authorization.dto';
import { OAuthProviderParamDto } from './dto/oauth-provider-param.dto';
import { StartOAuthDto } from './dto/start-oauth.dto';
import { Idempotent } from '../common/decorators/idempotent.decorator';

/**
 * `/api/channels`: connect with credentials, list, read, disconnect, and start an OAuth connection
 * (`POST /api/channels/connect/{provider}`; the callback and the choice of accounts are `/api/oauth/...`,
 * src/oauth/oauth.controller.ts).
 */
@ApiTags('Channels')
@Controller('channels')
export class ChannelsController {
  constructor(
    private readonly channels: ChannelsService,
    @Inject(CHANNEL_OAUTH) private readonly oauth: ChannelOAuth,
  ) {}

  @Post()
  @RequiredScope('channels:manage')
  @Idempotent()
  @ApiOperation({
    summary: 'Connect a social account',
    description:
      'Verifies the credentials with the provider, fills name, handle, avatar and limits from it, and stores the ' +
      'credentials encrypted. Connecting an account the workspace already has reactivates that channel (200).',
  })
  @ApiBody({ type: ConnectChannelDto, examples: CONNECT_CHANNEL_EXAMPLES })
  @ApiCreatedResponse({ type: ChannelDto, description: 'A new channel' })
  @ApiOkResponse({ type: ChannelDto, description: 'The existing channel of this account, reactivated' })
  @ApiErrors(400)
  async connectChannel(
    @WorkspaceId() workspaceId: string,
    @Body() body: ConnectChannelDto,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<ChannelDto> {
    const { channel, created } = await this.channels.connect(workspaceId, body.provider, body.credentials);
    void reply.status(created ? 201 : 200);
    return ChannelDto.from(channel);
  }

  @Get()
  @RequiredScope('channels:read')
  @ApiOperation({ summary: 'List channels' })
  @ApiPageResponse(ChannelDto)
  @ApiErrors(400)
  async listChannels(
    @WorkspaceId() workspaceId: string,
    @Query() query: ListChannelsQueryDto,
  ): Promise<Page<ChannelDto>> {
    const page = await this.channels.list(workspaceId, query);
    return { data: page.data.map((c) => ChannelDto.from(c)), nextCursor: page.nextCursor };
  }

  @Get(':id')
  @RequiredScope('channels:read')
  @ApiOperation({ summary: 'Get one channel' })
  @ApiOkResponse({ type: ChannelDto })
  @ApiErrors(400, 404)
  async getChannel(@WorkspaceId() workspaceId: string, @Param() { id }: IdParamDto): Promise<ChannelDto> {
    return ChannelDto.from(await this.channels.get(workspaceId, id));
  }

  @Delete(':id')
  @RequiredScope('channels:manage')
  @HttpCode(204)
  @ApiOperation({
    summary: 'Disconnect a channel',
    description:
      'Status becomes `disconnected`, credentials are wiped and `channel.disconnected` is emitted. The channel stays ' +
      'readable. Repeating it is a no-op. Posts already published stay on the network. Where the network offers it, ' +
      'the authorization is also revoked there (best effort, at most 10 s; a failure does not stop the disconnect), ' +
      'unless another connected channel shares it.',
  })
  @ApiNoContentResponse({ description: 'Disconnected' })
  @ApiErrors(400, 404)
  async disconnectChannel(@WorkspaceId() workspaceId: string, @Param() { id }: IdParamDto): Promise<void> {
    await this.channels.disconnect(workspaceId, id);
  }

  @Post('connect/:provider')
  @RequiredScope('channels:manage')
  @Idempotent()
  @ApiOperation({
    summary: 'Start connecting an account by OAuth',
    description:
      "Answers the network's authorization URL (authorization code with PKCE, S256) and a state that is " +
      "single-use, bound to this workspace and valid 10 minutes. Open the URL in the user's browser; the " +
      'network sends it back to `/api/oauth/{provider}/callback`, which creates or reactivates the channel ' +
      'and redirects to `redirectUri` with `channelId` (or `error`). When the account can publish as several ' +
      'targets (a LinkedIn member and the pages they administer), the callback redirects with `connectionId` ' +
      'instead: list them with `GET /api/oauth/connections/{id}` and choose with ' +
      '`POST /api/oauth/connections/{id}/channels`. A provider without app credentials on this server (see ' +
      '`GET /api/providers`, `enabled`) answers 400.',
  })
  @ApiCreatedResponse({ type: OAuthAuthorizationDto })
  @ApiErrors(400, 404)
  async connect(
    @WorkspaceId() workspaceId: string,
    @Param() { provider }: OAuthProviderParamDto,
    @Body() body: StartOAuthDto,
  ): Promise<OAuthAuthorizationDto> {
    const start = await this.oauth.start(workspaceId, provider, body.redirectUri);
    return { ...start, expiresAt: start.expiresAt.toISOString() };
  }
}
