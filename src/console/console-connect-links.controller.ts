import { Controller, Get, Param, Post, Req, Res, UseFilters, UseGuards } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Public } from '../common/decorators/public.decorator';
import { ConnectLinksService } from '../connect-links/connect-links.service';
import { ConnectLinkDto } from '../connect-links/dto/connect-link.dto';
import { ProvidersService } from '../providers/providers.service';
import { ConsoleExceptionFilter } from './console-exception.filter';
import { ConsoleGuard } from './console.guard';
import { redirect, sendPage } from './console-http';
import { ConsolePagesService } from './console-pages.service';
import { connectLinksPage, revokeConnectLinkPage } from './views/connect.page';

const LIST_LIMIT = 100;

/** Connect links of the workspace: their status, and revocation (confirmed first). Made through the API. */
@ApiExcludeController()
@Public()
@Controller('console/connect-links')
@UseGuards(ConsoleGuard)
@UseFilters(ConsoleExceptionFilter)
export class ConsoleConnectLinksController {
  constructor(
    private readonly pages: ConsolePagesService,
    private readonly links: ConnectLinksService,
    private readonly providers: ProvidersService,
  ) {}

  @Get()
  async list(@Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const flash = this.pages.takeFlash(req, reply);
    const page = await this.links.list(this.pages.actor(req).workspaceId, { limit: LIST_LIMIT });
    const ctx = await this.pages.context(req, reply, 'connect-links');
    sendPage(
      reply,
      connectLinksPage(ctx, {
        links: page.data.map((l) => ConnectLinkDto.from(l)),
        names: new Map(this.providers.list().map((n) => [n.id, n.name])),
        more: page.nextCursor !== null,
        ok: flash.ok,
      }),
    );
  }

  @Get(':id/revoke')
  async confirmRevoke(@Req() req: FastifyRequest, @Res() reply: FastifyReply, @Param('id') id: string): Promise<void> {
    const link = await this.links.get(this.pages.actor(req).workspaceId, id);
    const ctx = await this.pages.context(req, reply, 'connect-links');
    sendPage(reply, revokeConnectLinkPage(ctx, ConnectLinkDto.from(link)));
  }

  @Post(':id/revoke')
  async revoke(@Req() req: FastifyRequest, @Res() reply: FastifyReply, @Param('id') id: string): Promise<void> {
    await this.links.revoke(this.pages.actor(req).workspaceId, id);
    this.pages.setFlash(req, reply, { ok: 'Connect link revoked.' });
    redirect(reply, '/console/connect-links');
  }
}
