import { Controller, Get, Req, Res, UseFilters, UseGuards } from '@nestjs/common';
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
import { postsPage } from './views/posts.page';

/** Posts, read-only: per-channel status, filters by status and channel. */
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
    const ctx = await this.pages.context(req, reply, 'posts');
    sendPage(
      reply,
      postsPage(ctx, {
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
}
