import { Controller, Get, Param, Post, Req, Res, UseFilters, UseGuards } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { consoleRoleScopes, type Scope } from '../auth/scopes.format';
import { Public } from '../common/decorators/public.decorator';
import { AppError } from '../common/errors';
import {
  AuthorizationRefused,
  type AuthorizationRequest,
  OAuthServerService,
  baseUrlOf,
} from '../oauth-server/oauth-server.service';
import { UsersService } from '../users/users.service';
import { ConsoleExceptionFilter } from './console-exception.filter';
import { ConsoleGuard } from './console.guard';
import { consoleCsp, field, fields, redirect, sendPage } from './console-http';
import { ConsolePagesService } from './console-pages.service';
import { AUTHORIZATION_FIELDS, agentsPage, consentPage, revokeAgentPage } from './views/agents.page';

/**
 * The consent page of the OAuth authorization server (GET /oauth/authorize hands the browser here, where
 * the session cookie lives) and Account settings -> Authorized agents. The same OAuthServerService as
 * the /oauth endpoints.
 */
@ApiExcludeController()
@Public()
@Controller('console')
@UseGuards(ConsoleGuard)
@UseFilters(ConsoleExceptionFilter)
export class ConsoleAgentsController {
  constructor(
    private readonly pages: ConsolePagesService,
    private readonly oauth: OAuthServerService,
    private readonly users: UsersService,
  ) {}

  @Get('oauth/authorize')
  async consent(@Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const params = this.params(req.query as Record<string, unknown>);
    const request = await this.check(params, req, reply);
    if (!request) return;
    await this.showConsent(req, reply, request, params, this.pages.actor(req).workspaceId, request.requestedScopes);
  }

  @Post('oauth/authorize')
  async decide(@Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const params = this.params(req.body as Record<string, unknown>);
    const request = await this.check(params, req, reply);
    if (!request) return;
    const base = baseUrlOf(req);
    if (field(req, 'decision') !== 'approve') return redirect(reply, this.oauth.denial(request, base));
    const actor = this.pages.actor(req);
    const workspaceId = field(req, 'workspaceId');
    const ticked = fields(req, 'scopes');
    const membership = (await this.users.membershipsOf(actor.userId)).find((m) => m.workspaceId === workspaceId);
    try {
      if (!membership) throw AppError.validation('Choose one of your workspaces.');
      const to = await this.oauth.approve(
        request,
        { userId: actor.userId, workspaceId, scopes: ticked, held: consoleRoleScopes(membership.role) },
        base,
      );
      redirect(reply, to);
    } catch (err) {
      if (!(err instanceof AppError) || !['VALIDATION_ERROR', 'FORBIDDEN'].includes(err.code)) throw err;
      const status = err.code === 'FORBIDDEN' ? 403 : 400;
      await this.showConsent(req, reply, request, params, workspaceId, ticked as Scope[], err.message, status);
    }
  }

  @Get('agents')
  async list(@Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const flash = this.pages.takeFlash(req, reply);
    const agents = await this.oauth.listAgents(this.pages.actor(req).workspaceId);
    sendPage(reply, agentsPage(await this.pages.context(req, reply, 'agents'), { agents, ok: flash.ok }));
  }

  @Get('agents/:id/revoke')
  async confirmRevoke(@Req() req: FastifyRequest, @Res() reply: FastifyReply, @Param('id') id: string): Promise<void> {
    const agent = await this.oauth.getAgent(this.pages.actor(req).workspaceId, id);
    sendPage(reply, revokeAgentPage(await this.pages.context(req, reply, 'agents'), agent));
  }

  @Post('agents/:id/revoke')
  async revoke(@Req() req: FastifyRequest, @Res() reply: FastifyReply, @Param('id') id: string): Promise<void> {
    const agent = await this.oauth.getAgent(this.pages.actor(req).workspaceId, id);
    await this.oauth.revokeAgent(this.pages.actor(req).workspaceId, id);
    this.pages.setFlash(req, reply, { ok: `${agent.clientName} was revoked.` });
    redirect(reply, '/console/agents');
  }

  private params(source: Record<string, unknown> | undefined): Record<string, string> {
    const out: Record<string, string> = {};
    for (const name of AUTHORIZATION_FIELDS) {
      const v = source?.[name];
      out[name] = typeof v === 'string' ? v : Array.isArray(v) && typeof v[0] === 'string' ? v[0] : '';
    }
    return out;
  }

  /** The request checked; a refusal the client must hear goes back to it (and null is returned). */
  private async check(
    params: Record<string, string>,
    req: FastifyRequest,
    reply: FastifyReply,
  ): Promise<AuthorizationRequest | null> {
    try {
      return await this.oauth.checkAuthorization(params, baseUrlOf(req));
    } catch (err) {
      if (!(err instanceof AuthorizationRefused)) throw err;
      redirect(reply, err.redirectTo);
      return null;
    }
  }

  private async showConsent(
    req: FastifyRequest,
    reply: FastifyReply,
    request: AuthorizationRequest,
    params: Record<string, string>,
    workspaceId: string,
    ticked: readonly Scope[],
    error?: string,
    status = 200,
  ): Promise<void> {
    const ctx = await this.pages.context(req, reply);
    const memberships = ctx.memberships ?? [];
    const redirectUrl = new URL(request.redirectUri);
    // The form's answer redirects to the agent: browsers hold that redirect to the page's form-action.
    void reply.header('content-security-policy', consoleCsp([redirectUrl.origin]));
    sendPage(
      reply,
      consentPage(ctx, {
        clientName: request.client.name,
        clientUri: request.client.clientUri,
        redirectHost: redirectUrl.host,
        params,
        memberships,
        workspaceId,
        heldByWorkspace: new Map(memberships.map((m) => [m.workspaceId, consoleRoleScopes(m.role)])),
        ticked,
        error,
      }),
      status,
    );
  }
}
