import { RequiredScope } from '../auth/scope.decorator';
import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiAcceptedResponse, ApiBody, ApiOkResponse, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { ApiErrors } from '../common/decorators/api-errors.decorator';
import { WorkspaceId } from '../auth/workspace.decorator';
import { ErrorResponseDto } from '../common/errors';
import { AnalyticsService } from './analytics.service';
import { ChannelIdParamDto, PostIdParamDto } from './dto/analytics-params.dto';
import { ChannelAnalyticsDto, ChannelAnalyticsQueryDto } from './dto/channel-analytics.dto';
import { AnalyticsRefreshDto, PostAnalyticsDto, RefreshAnalyticsBodyDto } from './dto/post-analytics.dto';
import { Idempotent } from '../common/decorators/idempotent.decorator';

@ApiTags('Analytics')
@Controller('analytics')
export class AnalyticsController {
  constructor(private readonly analytics: AnalyticsService) {}

  @Get('posts/:postId')
  @RequiredScope('analytics:read')
  @ApiOperation({
    summary: "A post's engagement figures",
    description:
      'The latest figures of every published target and their totals. Figures are read from the networks ' +
      'every collection run during the first day after publication, hourly until day 7, daily until day 30, ' +
      'then no more; `POST .../refresh` reads them at once.',
  })
  @ApiOkResponse({ type: PostAnalyticsDto })
  @ApiErrors(400, 404)
  getPostAnalytics(@WorkspaceId() workspaceId: string, @Param() { postId }: PostIdParamDto): Promise<PostAnalyticsDto> {
    return this.analytics.getPostAnalytics(workspaceId, postId);
  }

  @Get('channels/:channelId')
  @RequiredScope('analytics:read')
  @ApiOperation({
    summary: "A channel's daily series",
    description:
      'One entry per UTC day from `from` to `to` (default: the last 30 days). Each day sums the latest figures ' +
      'of the posts published on the channel that day (by publication day, not engagement received that day); ' +
      '`totals` sums the days. A figure is null when no post counted in it exposes it.',
  })
  @ApiOkResponse({ type: ChannelAnalyticsDto })
  @ApiErrors(400, 404)
  getChannelAnalytics(
    @WorkspaceId() workspaceId: string,
    @Param() { channelId }: ChannelIdParamDto,
    @Query() query: ChannelAnalyticsQueryDto,
  ): Promise<ChannelAnalyticsDto> {
    return this.analytics.getChannelAnalytics(workspaceId, channelId, query);
  }

  @Post('posts/:postId/refresh')
  @RequiredScope('analytics:read')
  @Idempotent()
  @HttpCode(202)
  @ApiOperation({
    summary: "Read a post's figures now",
    description:
      'Queues a read of every published target of the post; `GET /analytics/posts/{postId}` shows the result ' +
      'within seconds, and `analytics.updated` is emitted when a figure changed. At most once per post every ' +
      '10 seconds (ANALYTICS_REFRESH_COOLDOWN_SECONDS): 429 with `Retry-After` otherwise. A post without a ' +
      'published target answers 409.',
  })
  @ApiBody({ type: RefreshAnalyticsBodyDto, required: false })
  @ApiAcceptedResponse({ type: AnalyticsRefreshDto })
  @ApiErrors(400, 404, 409)
  @ApiResponse({
    status: 503,
    description: 'SERVICE_UNAVAILABLE: the refresh could not be queued',
    type: ErrorResponseDto,
  })
  refreshPostAnalytics(
    @WorkspaceId() workspaceId: string,
    @Param() { postId }: PostIdParamDto,
    @Body() _body: RefreshAnalyticsBodyDto,
  ): Promise<AnalyticsRefreshDto> {
    return this.analytics.refreshPostAnalytics(workspaceId, postId);
  }
}
