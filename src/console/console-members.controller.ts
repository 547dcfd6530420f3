import { Controller, Get, Param, Post, Req, Res, UseFilters, UseGuards } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Public } from '../common/decorators/public.decorator';
import { AppError } from '../common/errors';
import { ROLES, Role } from '../users/membership.entity';
import { UsersService } from '../users/users.service';
import { ConsoleExceptionFilter } from './console-exception.filter';
import { ConsoleGuard, ConsoleOwnersOnly } from './console.guard';
import { field, redirect, sendPage } from './console-http';
import { ConsolePagesService } from './console-pages.service';
import { membersPage, removeMemberPage, revokeInvitationPage } from './views/members.page';

function role(value: string): Role {
  if (!ROLES.includes(value as Role)) throw AppError.validation(`role: must be one of ${ROLES.join(', ')}`);
  return value as Role;
}

/** Members (owners only): invite by one-time link, revoke an open invitation, change role, remove. */
@ApiExcludeController()
@Public()
@Controller('console/members')
@UseGuards(ConsoleGuard)
@UseFilters(ConsoleExceptionFilter)
@ConsoleOwnersOnly()
export class ConsoleMembersController {
  constructor(
    private readonly pages: ConsolePagesService,
    private readonly users: UsersService,
  ) {}

  @Get()
  async list(@Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const workspaceId = this.pages.actor(req).workspaceId;
    const flash = this.pages.takeFlash(req, reply);
    const [members, invitations] = await Promise.all([
      this.users.listMembers(workspaceId),
      this.users.listOpenInvitations(workspaceId),
    ]);
    const ctx = await this.pages.context(req, reply, 'members');
    sendPage(
      reply,
      membersPage(ctx, {
        members,
        invitations,
        inviteLink: flash.inviteLink ?? null,
        error: flash.error,
        ok: flash.ok,
      }),
    );
  }

  @Post('invite')
  async invite(@Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    try {
      const email = field(req, 'email');
      const { link, url } = await this.users.createLink(
        'invitation',
        this.pages.actor(req).workspaceId,
        email,
        role(field(req, 'role')),
      );
      this.pages.setFlash(req, reply, { inviteLink: { url, email: link.email ?? email } });
    } catch (err) {
      if (!(err instanceof AppError) || err.code !== 'VALIDATION_ERROR') throw err;
      this.pages.setFlash(req, reply, { error: `No invitation was made. ${err.message}` });
    }
    redirect(reply, '/console/members');
  }

  @Post(':userId/role')
  async changeRole(
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
    @Param('userId') userId: string,
  ): Promise<void> {
    await this.guarded(
      req,
      reply,
      () => this.users.changeRole(this.pages.actor(req).workspaceId, userId, role(field(req, 'role'))),
      'Role changed.',
    );
  }

  @Get(':userId/remove')
  async confirmRemove(
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
    @Param('userId') userId: string,
  ): Promise<void> {
    const members = await this.users.listMembers(this.pages.actor(req).workspaceId);
    const member = members.find((m) => m.userId === userId);
    if (!member) throw AppError.notFound('Member');
    sendPage(reply, removeMemberPage(await this.pages.context(req, reply, 'members'), member));
  }

  @Post(':userId/remove')
  async remove(@Req() req: FastifyRequest, @Res() reply: FastifyReply, @Param('userId') userId: string): Promise<void> {
    await this.guarded(
      req,
      reply,
      () => this.users.removeMember(this.pages.actor(req).workspaceId, userId),
      'Member removed.',
    );
  }

  @Get('invitations/:id/revoke')
  async confirmRevokeInvitation(
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
    @Param('id') id: string,
  ): Promise<void> {
    const invitation = await this.users.getOpenInvitation(this.pages.actor(req).workspaceId, id);
    sendPage(reply, revokeInvitationPage(await this.pages.context(req, reply, 'members'), invitation));
  }

  @Post('invitations/:id/revoke')
  async revokeInvitation(
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
    @Param('id') id: string,
  ): Promise<void> {
    await this.users.revokeInvitation(this.pages.actor(req).workspaceId, id);
    this.pages.setFlash(req, reply, { ok: 'Invitation revoked: its link no longer works.' });
    redirect(reply, '/console/members');
  }

  /** Runs a change; a refusal (last owner) becomes a notice on the page. */
  private async guarded(
    req: FastifyRequest,
    reply: FastifyReply,
    change: () => Promise<void>,
    ok: string,
  ): Promise<void> {
    try {
      await change();
      this.pages.setFlash(req, reply, { ok });
    } catch (err) {
      if (!(err instanceof AppError) || !['CONFLICT', 'VALIDATION_ERROR'].includes(err.code)) throw err;
      this.pages.setFlash(req, reply, { error: err.message });
    }
    redirect(reply, '/console/members');
  }
}
