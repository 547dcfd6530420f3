import { Controller, Get, Req, Res, UseFilters, UseGuards } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AnalyticsService } from '../analytics/analytics.service';
import { ChannelsService } from '../channels/channels.service';
import { Public } from '../common/decorators/public.decorator';
import { AppError } from '../common/errors';
import { ListPostsQueryDto } from '../posts/dto/list-posts.query.dto';
import { PostsService } from '../posts/posts.service';
import { ProvidersService } from '../providers/providers.service';
import { ConsoleExceptionFilter } from './console-exception.filter';
import { ConsoleGuard } from './console.guard';
import { sendPage } from './console-http';
import { ConsolePagesService, validateForm } from './console-pages.service';
import { analyticsPage } from './views/analytics.page';

const DAY = 86_400_000;
const POSTS_SHOWN = 20;

/** Analytics as pictures: the same AnalyticsService as GET /api/analytics/..., drawn as SVG with tables. */
@ApiExcludeController()
@Public()
@Controller('console/analytics')
@UseGuards(ConsoleGuard)
@UseFilters(ConsoleExceptionFilter)
export class ConsoleAnalyticsController {
  constructor(
    private readonly pages: ConsolePagesService,
    private readonly analytics: AnalyticsService,
    private readonly channels: ChannelsService,
    private readonly posts: PostsService,
    private readonly providers: ProvidersService,
  ) {}

  @Get()
  async show(@Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const workspaceId = this.pages.actor(req).workspaceId;
    const q = (req.query ?? {}) as Record<string, unknown>;
    const today = new Date().toISOString().slice(0, 10);
    let to = typeof q.to === 'string' && q.to ? q.to : today;
    let from =
      typeof q.from === 'string' && q.from
        ? q.from
        : new Date(Date.parse(`${to}T00:00:00Z`) - 29 * DAY).toISOString().slice(0, 10);
    const networks = new Map(this.providers.list().map((n) => [n.id, n.name]));
    const channels = (await this.channels.list(workspaceId, { limit: 100 })).data;
    let error: string | undefined;
    const series = [];
    try {
      for (const channel of channels) {
        series.push({
          channel,
          name: `${networks.get(channel.provider) ?? channel.provider} · ${channel.handle}`,
          series: await this.analytics.getChannelAnalytics(workspaceId, channel.id, { from, to }),
        });
      }
    } catch (err) {
      if (!(err instanceof AppError) || err.code !== 'VALIDATION_ERROR') throw err;
      error = `Range ignored: ${err.message}`;
      to = today;
      from = new Date(Date.parse(`${to}T00:00:00Z`) - 29 * DAY).toISOString().slice(0, 10);
      series.length = 0;
      for (const channel of channels) {
        series.push({
          channel,
          name: `${networks.get(channel.provider) ?? channel.provider} · ${channel.handle}`,
          series: await this.analytics.getChannelAnalytics(workspaceId, channel.id, { from, to }),
        });
      }
    }
    const query = validateForm(ListPostsQueryDto, {
      status: 'published',
      sort: 'scheduledAt',
      from: `${from}T00:00:00Z`,
      to: new Date(Date.parse(`${to}T00:00:00Z`) + DAY).toISOString(),
    });
    query.limit = POSTS_SHOWN;
    const published = (await this.posts.list(workspaceId, query)).data;
    const figures = await this.analytics.postAnalytics(
      null,
      published.map((p) => p.id),
    );
    const ctx = await this.pages.context(req, reply, 'analytics');
    sendPage(
      reply,
      analyticsPage(ctx, {
        from,
        to,
        channels: series,
        posts: published.map((post) => ({ post, analytics: figures.get(post.id)! })),
        error,
      }),
      error ? 400 : 200,
    );
  }
}
