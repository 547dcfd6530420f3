import { Controller, Get, Query, Req, Res, UseFilters, UseGuards } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Public } from '../common/decorators/public.decorator';
import { ConnectLinksService } from '../connect-links/connect-links.service';
import { ConnectLinkDto } from '../connect-links/dto/connect-link.dto';
import { OrganizationOverviewService } from '../platform/organization-overview.service';
import { ConsoleExceptionFilter } from './console-exception.filter';
import { ConsoleGuard, ConsoleOwnersOnly } from './console.guard';
import { sendPage } from './console-http';
import { ProvidersService } from '../providers/providers.service';
import { ConsolePagesService } from './console-pages.service';
import { OVERVIEW_WINDOWS, WorkspaceLinks, organizationPage } from './views/organization.page';

/** The newest connect links shown per workspace; the workspace's own Connect links page lists them all. */
export const LINKS_PER_WORKSPACE = 10;

/**
 * The organization's workspaces, their usage and the connect links made in each (owners of the
 * organization's first workspace; docs/adr/0052). Shows only: a link is revoked on its workspace's
 * Connect links page.
 */
@ApiExcludeController()
@Public()
@Controller('console/organization')
@UseGuards(ConsoleGuard)
@UseFilters(ConsoleExceptionFilter)
@ConsoleOwnersOnly()
export class ConsoleOrganizationController {
  constructor(
    private readonly pages: ConsolePagesService,
    private readonly overview: OrganizationOverviewService,
    private readonly links: ConnectLinksService,
    private readonly providers: ProvidersService,
  ) {}

  @Get()
  async show(@Req() req: FastifyRequest, @Res() reply: FastifyReply, @Query('days') days?: string): Promise<void> {
    const window = OVERVIEW_WINDOWS.find((d) => String(d) === days) ?? 30;
    const overview = await this.overview.overviewFor(this.pages.actor(req).workspaceId, window);
    const links = new Map<string, WorkspaceLinks>();
    for (const { workspace } of overview?.workspaces ?? []) {
      const page = await this.links.list(workspace.id, { limit: LINKS_PER_WORKSPACE });
      links.set(workspace.id, { links: page.data.map((l) => ConnectLinkDto.from(l)), more: page.nextCursor !== null });
    }
    const names = new Map(this.providers.list().map((n) => [n.id, n.name]));
    const ctx = await this.pages.context(req, reply, 'organization');
    sendPage(reply, organizationPage(ctx, { overview, days: window, links, names }));
  }
}
