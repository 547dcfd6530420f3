import { Controller, Get, Header, Post, Query, Req, Res, UseFilters, UseGuards } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiKeysService } from '../auth/api-keys.service';
import { Public } from '../common/decorators/public.decorator';
import { AppError } from '../common/errors';
import { LoginService } from '../users/login.service';
import { SessionsService } from '../users/sessions.service';
import { MIN_PASSWORD_LENGTH, UsersService } from '../users/users.service';
import { ConsoleExceptionFilter } from './console-exception.filter';
import { ConsoleAnyone, ConsoleGuard } from './console.guard';
import { SESSION_COOKIE, clearCookie, field, isSignInReturn, redirect, sendPage, setCookie } from './console-http';
import { ConsolePagesService } from './console-pages.service';
import { CONSOLE_CSS, CONSOLE_JS } from './views/assets';
import { acceptLinkPage, loginPage } from './views/pages';

/** Sign in and out, first-owner setup, invitations, workspace switch, and the two static files. */
@ApiExcludeController()
@Public()
@Controller('console')
@UseGuards(ConsoleGuard)
@UseFilters(ConsoleExceptionFilter)
export class ConsoleAuthController {
  constructor(
    private readonly pages: ConsolePagesService,
    private readonly login: LoginService,
    private readonly sessions: SessionsService,
    private readonly users: UsersService,
    private readonly workspaces: ApiKeysService,
  ) {}

  @Get()
  @ConsoleAnyone()
  home(@Req() req: FastifyRequest, @Res() reply: FastifyReply): void {
    redirect(reply, req.consoleActor ? '/console/keys' : '/console/login');
  }

  @Get('assets/console.css')
  @ConsoleAnyone()
  @Header('Content-Type', 'text/css; charset=utf-8')
  @Header('Cache-Control', 'public, max-age=3600')
  css(): string {
    return CONSOLE_CSS;
  }

  @Get('assets/console.js')
  @ConsoleAnyone()
  @Header('Content-Type', 'text/javascript; charset=utf-8')
  @Header('Cache-Control', 'public, max-age=3600')
  js(): string {
    return CONSOLE_JS;
  }

  @Get('login')
  @ConsoleAnyone()
  loginForm(@Req() req: FastifyRequest, @Res() reply: FastifyReply, @Query('next') next?: string): void {
    const onward = typeof next === 'string' && isSignInReturn(next) ? next : undefined;
    if (req.consoleActor) return redirect(reply, onward ?? '/console/keys');
    sendPage(reply, loginPage(this.pages.anonymousContext(req, reply), { next: onward }));
  }

  @Post('login')
  @ConsoleAnyone()
  async signIn(@Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const email = field(req, 'email');
    const next = isSignInReturn(field(req, 'next')) ? field(req, 'next') : undefined;
    try {
      const user = await this.login.login(email, field(req, 'password'), req.ip);
      const started = await this.sessions.startForUser(user);
      if (!started) throw new AppError('UNAUTHORIZED', 'Your account is not a member of any workspace any more');
      if (req.consoleActor) await this.sessions.revoke(req.consoleActor.sessionId);
      setCookie(
        req,
        reply,
        SESSION_COOKIE,
        started.token,
        Math.floor((started.session.expiresAt.getTime() - Date.now()) / 1000),
      );
      redirect(reply, next ?? '/console/keys');
    } catch (err) {
      if (!(err instanceof AppError) || !['UNAUTHORIZED', 'RATE_LIMIT_EXCEEDED'].includes(err.code)) throw err;
      if (err.headers) for (const [k, v] of Object.entries(err.headers)) void reply.header(k, String(v));
      const status = err.code === 'UNAUTHORIZED' ? 401 : 429;
      sendPage(reply, loginPage(this.pages.anonymousContext(req, reply), { email, error: err.message, next }), status);
    }
  }

  @Post('logout')
  @ConsoleAnyone()
  async signOut(@Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    if (req.consoleActor) await this.sessions.revoke(req.consoleActor.sessionId);
    clearCookie(req, reply, SESSION_COOKIE);
    redirect(reply, '/console/login');
  }

  @Post('workspace')
  async switchWorkspace(@Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const actor = this.pages.actor(req);
    if (!(await this.sessions.switchWorkspace(actor, field(req, 'workspaceId')))) throw AppError.notFound('Workspace');
    redirect(reply, '/console/keys');
  }

  @Get('setup')
  @ConsoleAnyone()
  setupForm(@Req() req: FastifyRequest, @Res() reply: FastifyReply, @Query('token') token?: string): Promise<void> {
    return this.linkForm(req, reply, 'setup', token);
  }

  @Post('setup')
  @ConsoleAnyone()
  setup(@Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    return this.acceptLink(req, reply, 'setup');
  }

  @Get('invitations/accept')
  @ConsoleAnyone()
  invitationForm(
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
    @Query('token') token?: string,
  ): Promise<void> {
    return this.linkForm(req, reply, 'invitation', token);
  }

  @Post('invitations/accept')
  @ConsoleAnyone()
  acceptInvitation(@Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    return this.acceptLink(req, reply, 'invitation');
  }

  /** Any other /console path: a friendly 404 page, not the API's JSON. */
  @Get('*')
  @ConsoleAnyone()
  notFound(): never {
    throw new AppError('NOT_FOUND', 'There is no such page in the console.');
  }

  private async linkForm(
    req: FastifyRequest,
    reply: FastifyReply,
    kind: 'setup' | 'invitation',
    token: string | undefined,
    error?: string,
    status = 200,
  ): Promise<void> {
    const link = typeof token === 'string' ? await this.users.findUsableLink(token) : null;
    if (!link || link.kind !== kind)
      throw new AppError('NOT_FOUND', 'This link is used, expired or unknown; ask for a new one');
    const [workspace] = await this.workspaces.findWorkspaces([link.workspaceId]);
    const page = acceptLinkPage(this.pages.anonymousContext(req, reply), {
      kind,
      action: kind === 'setup' ? '/console/setup' : '/console/invitations/accept',
      token: token ?? '',
      email: link.email,
      workspaceName: workspace?.name ?? '',
      role: link.role,
      error,
      minPasswordLength: MIN_PASSWORD_LENGTH,
    });
    sendPage(reply, page, status);
  }

  private async acceptLink(req: FastifyRequest, reply: FastifyReply, kind: 'setup' | 'invitation'): Promise<void> {
    const token = field(req, 'token');
    const link = await this.users.findUsableLink(token);
    if (!link || link.kind !== kind)
      throw new AppError('NOT_FOUND', 'This link is used, expired or unknown; ask for a new one');
    try {
      const { user, workspaceId } = await this.users.acceptLink(token, {
        email: field(req, 'email'),
        password: field(req, 'password'),
      });
      if (req.consoleActor) await this.sessions.revoke(req.consoleActor.sessionId);
      const { token: sessionToken, session } = await this.sessions.start(user.id, workspaceId);
      setCookie(
        req,
        reply,
        SESSION_COOKIE,
        sessionToken,
        Math.floor((session.expiresAt.getTime() - Date.now()) / 1000),
      );
      redirect(reply, '/console/keys');
    } catch (err) {
      if (!(err instanceof AppError) || !['VALIDATION_ERROR', 'UNAUTHORIZED'].includes(err.code)) throw err;
      await this.linkForm(req, reply, kind, token, err.message, err.code === 'UNAUTHORIZED' ? 401 : 400);
    }
  }
}
