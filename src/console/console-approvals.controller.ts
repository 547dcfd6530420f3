import { Controller, Get, Param, Post, Req, Res, UseFilters, UseGuards } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { holdsScope } from '../auth/scopes.format';
import { WorkspacesService } from '../auth/workspaces.service';
import { ChannelsService } from '../channels/channels.service';
import { Public } from '../common/decorators/public.decorator';
import { AppError } from '../common/errors';
import { ListPostsQueryDto } from '../posts/dto/list-posts.query.dto';
import { RejectPostDto } from '../posts/dto/reject-post.dto';
import { PostsService } from '../posts/posts.service';
import { ConsoleExceptionFilter } from './console-exception.filter';
import { ConsoleForbidden, ConsoleGuard } from './console.guard';
import { field, redirect, sendPage } from './console-http';
import { ConsolePagesService, validateForm } from './console-pages.service';
import { ConsolePreviewsService } from './console-previews.service';
import { approvalsPage } from './views/approvals.page';

const PAGE = '/console/approvals';

/**
 * Posts waiting for an approval, and the workspace's setting: the same PostsService and
 * WorkspacesService as the API, with the signed-in user's role as their scopes (owners and
 * approvers approve; members see the list).
 */
@ApiExcludeController()
@Public()
@Controller('console/approvals')
@UseGuards(ConsoleGuard)
@UseFilters(ConsoleExceptionFilter)
export class ConsoleApprovalsController {
  constructor(
    private readonly pages: ConsolePagesService,
    private readonly posts: PostsService,
    private readonly channels: ChannelsService,
    private readonly previews: ConsolePreviewsService,
    private readonly workspaces: WorkspacesService,
  ) {}

  @Get()
  async list(@Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const actor = this.pages.scopedActor(req);
    const flash = this.pages.takeFlash(req, reply);
    const query = validateForm(ListPostsQueryDto, { status: 'pending_approval', sort: 'createdAt' });
    query.limit = 50;
    const [page, channels, workspace] = await Promise.all([
      this.posts.list(actor.workspaceId, query),
      this.channels.list(actor.workspaceId, { limit: 100 }),
      this.workspaces.get(actor.workspaceId),
    ]);
    const [media, limits] = await Promise.all([
      this.previews.forPosts(actor.workspaceId, page.data),
      this.previews.limits(actor.workspaceId, page.data),
    ]);
    const ctx = await this.pages.context(req, reply, 'approvals');
    sendPage(
      reply,
      approvalsPage(ctx, {
        posts: page.data,
        channels: channels.data,
        media,
        limits,
        canApprove: holdsScope(actor.scopes, 'posts:approve'),
        approvalRequired: workspace.approvalRequired,
        error: flash.error,
        ok: flash.ok,
        more: page.nextCursor !== null,
      }),
    );
  }

  @Post('setting')
  async setting(@Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const actor = this.pages.scopedActor(req);
    if (!holdsScope(actor.scopes, 'posts:approve'))
      throw new ConsoleForbidden('Only owners and approvers can change this setting.');
    const approvalRequired = field(req, 'approvalRequired') === 'true';
    await this.workspaces.update(actor.workspaceId, { approvalRequired });
    this.pages.setFlash(req, reply, {
      ok: approvalRequired
        ? 'Every post now needs an approval.'
        : 'Posts need an approval only when their key may not publish.',
    });
    redirect(reply, PAGE);
  }

  @Post(':id/approve')
  async approve(@Req() req: FastifyRequest, @Res() reply: FastifyReply, @Param('id') id: string): Promise<void> {
    await this.act(req, reply, async () => {
      const post = await this.posts.approve(this.pages.scopedActor(req), id);
      return post.status === 'scheduled'
        ? 'Approved: the post is scheduled.'
        : 'Approved: the post is being published.';
    });
  }

  @Post(':id/reject')
  async reject(@Req() req: FastifyRequest, @Res() reply: FastifyReply, @Param('id') id: string): Promise<void> {
    await this.act(req, reply, async () => {
      const { reason } = validateForm(RejectPostDto, { reason: field(req, 'reason').trim() });
      await this.posts.reject(this.pages.scopedActor(req), id, reason);
      return 'Rejected: the post is a draft again, with your reason.';
    });
  }

  /** Runs an approval or rejection; what a person can fix (already decided, no reason) comes back as a notice. */
  private async act(req: FastifyRequest, reply: FastifyReply, action: () => Promise<string>): Promise<void> {
    try {
      this.pages.setFlash(req, reply, { ok: await action() });
    } catch (err) {
      if (!(err instanceof AppError) || !['VALIDATION_ERROR', 'CONFLICT', 'FORBIDDEN'].includes(err.code)) throw err;
      this.pages.setFlash(req, reply, { error: err.message });
    }
    redirect(reply, PAGE);
  }
}
