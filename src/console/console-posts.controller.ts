import { Controller, Get, Param, Req, Res, UseFilters, UseGuards } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ChannelsService } from '../channels/channels.service';
import { Public } from '../common/decorators/public.decorator';
import { AppError } from '../common/errors';
import { ListPostsQueryDto } from '../posts/dto/list-posts.query.dto';
import { POST_STATUSES } from '../posts/post.entity';
import { PostsService } from '../posts/posts.service';
import { ConsoleExceptionFilter } from './console-exception.filter';
import { ConsoleGuard } from './console.guard';
import { sendPage } from './console-http';
import { ConsolePagesService, validateForm } from './console-pages.service';
import { ProvidersService } from '../providers/providers.service';
import { AnalyticsService } from '../analytics/analytics.service';
import { EventsService } from '../events/events.service';
import { WebhooksService } from '../webhooks/webhooks.service';
import { ConsolePreviewsService } from './console-previews.service';
import { postPage } from './views/post.page';
import { postsPage } from './views/posts.page';

/** Posts: the list (per-channel status, filters by status and channel) and each post's page. */
@ApiExcludeController()
@Public()
@Controller('console/posts')
@UseGuards(ConsoleGuard)
@UseFilters(ConsoleExceptionFilter)
export class ConsolePostsController {
  constructor(
    private readonly pages: ConsolePagesService,
    private readonly posts: PostsService,
    private readonly channels: ChannelsService,
    private readonly providers: ProvidersService,
    private readonly previews: ConsolePreviewsService,
    private readonly events: EventsService,
    private readonly webhooks: WebhooksService,
    private readonly analytics: AnalyticsService,
  ) {}

  @Get()
  async list(@Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const workspaceId = this.pages.actor(req).workspaceId;
    const q = (req.query ?? {}) as Record<string, unknown>;
    const status = typeof q.status === 'string' && q.status ? q.status : undefined;
    const channelId = typeof q.channelId === 'string' && q.channelId ? q.channelId : undefined;
    const channels = (await this.channels.list(workspaceId, { limit: 100 })).data;
    let error: string | undefined;
    let page = { data: [] as Awaited<ReturnType<PostsService['list']>>['data'], nextCursor: null as string | null };
    try {
      const query = validateForm(ListPostsQueryDto, { status, channelId });
      query.limit = 50;
      page = await this.posts.list(workspaceId, query);
    } catch (err) {
      if (!(err instanceof AppError) || err.code !== 'VALIDATION_ERROR') throw err;
      error = `Filters ignored: ${err.message}`;
    }
    const [media, limits] = await Promise.all([
      this.previews.forPosts(workspaceId, page.data),
      this.previews.limits(workspaceId, page.data),
    ]);
    const ctx = await this.pages.context(req, reply, 'posts');
    sendPage(
      reply,
      postsPage(ctx, {
        media,
        limits,
        posts: page.data,
        channels,
        networks: this.providers.list(),
        statuses: POST_STATUSES,
        status,
        channelId,
        error,
        more: page.nextCursor !== null,
      }),
      error ? 400 : 200,
    );
  }

  /** A post's whole story: content, media, who asked, each channel's outcome, events, deliveries, figures. */
  @Get(':id')
  async show(@Req() req: FastifyRequest, @Res() reply: FastifyReply, @Param('id') id: string): Promise<void> {
    const workspaceId = this.pages.actor(req).workspaceId;
    const flash = this.pages.takeFlash(req, reply);
    const post = await this.posts.get(workspaceId, id);
    const [channels, media, problems, checkpoints, events, analytics] = await Promise.all([
      this.channels.list(workspaceId, { limit: 100 }),
      this.previews.forPosts(workspaceId, [post]),
      this.posts.limitProblems(workspaceId, post),
      this.posts.checkpointsOf(workspaceId, post.id),
      this.events.ofPost(workspaceId, post.id),
      this.analytics.postHistory(workspaceId, post.id),
    ]);
    const deliveries = await this.webhooks.attemptsOfEvents(
      workspaceId,
      events.map((e) => e.id),
    );
    const ctx = await this.pages.context(req, reply, 'posts');
    sendPage(
      reply,
      postPage(ctx, {
        post,
        channels: channels.data,
        networks: new Map(this.providers.list().map((n) => [n.id, n.name])),
        media,
        problems,
        checkpoints,
        events,
        deliveries,
        analytics,
        ok: flash.ok,
      }),
    );
  }
}
