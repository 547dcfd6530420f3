import { Controller, Get, Query, Req, Res, UseFilters, UseGuards } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Public } from '../common/decorators/public.decorator';
import { OrganizationOverviewService } from '../platform/organization-overview.service';
import { ConsoleExceptionFilter } from './console-exception.filter';
import { ConsoleGuard, ConsoleOwnersOnly } from './console.guard';
import { sendPage } from './console-http';
import { ConsolePagesService } from './console-pages.service';
import { OVERVIEW_WINDOWS, organizationPage } from './views/organization.page';

/** The organization's workspaces and their usage (owners of the organization's first workspace; docs/adr/0052). */
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
  ) {}

  @Get()
  async show(@Req() req: FastifyRequest, @Res() reply: FastifyReply, @Query('days') days?: string): Promise<void> {
    const window = OVERVIEW_WINDOWS.find((d) => String(d) === days) ?? 30;
    const overview = await this.overview.overviewFor(this.pages.actor(req).workspaceId, window);
    const ctx = await this.pages.context(req, reply, 'organization');
    sendPage(reply, organizationPage(ctx, { overview, days: window }));
  }
}
