import { Controller, Get, Inject, Param, Post, Req, Res, UseFilters, UseGuards } from '@nestjs/common';
import { ConfigType } from '@nestjs/config';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ChannelsService } from '../channels/channels.service';
import { Public } from '../common/decorators/public.decorator';
import { AppError } from '../common/errors';
import { consoleConfig } from '../config';
import { OAuthAppsService } from '../oauth/oauth-apps.service';
import { OAuthService } from '../oauth/oauth.service';
import { PROVIDER_PLUGINS, ProviderId } from '../providers/provider.list';
import { ConsoleExceptionFilter } from './console-exception.filter';
import { ConsoleGuard } from './console.guard';
import { consoleCsp, fields, redirect, sendPage } from './console-http';
import { ConsolePagesService } from './console-pages.service';
import { credentialFields, credentialValue } from './credential-fields';
import { OAuthButton, ProviderForm, channelsPage, chooseTargetsPage } from './views/channels.page';

const CREDENTIAL_PREFIX = 'credentials.';
const OAUTH_PLUGINS = PROVIDER_PLUGINS.filter((p) => p.connectKind === 'oauth');
/** The network's name for people (`mastodon` -> `Mastodon`). */
const displayName = (id: string) => PROVIDER_PLUGINS.find((p) => p.id === id)?.displayName ?? id;

/**
 * Channels: list, connect (forms generated from each provider's credentials schema; a button per
 * OAuth network that runs its authorization and, when it reaches several accounts, a page to choose
 * them), disconnect.
 */
@ApiExcludeController()
@Public()
@Controller('console/channels')
@UseGuards(ConsoleGuard)
@UseFilters(ConsoleExceptionFilter)
export class ConsoleChannelsController {
  private readonly forms: ProviderForm[];

  constructor(
    private readonly pages: ConsolePagesService,
    private readonly channels: ChannelsService,
    private readonly oauth: OAuthService,
    private readonly oauthApps: OAuthAppsService,
    @Inject(consoleConfig.KEY) private readonly cfg: ConfigType<typeof consoleConfig>,
  ) {
    // Every credentials-based network registered in the provider list gets a form.
    this.forms = PROVIDER_PLUGINS.filter((p) => p.connectKind === 'credentials').map((p) => ({
      id: p.id,
      name: p.displayName,
      fields: credentialFields(p.credentials),
    }));
  }

  @Get()
  async list(@Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const flash = this.pages.takeFlash(req, reply);
    const page = await this.channels.list(this.pages.actor(req).workspaceId, { limit: 100 });
    const ctx = await this.pages.context(req, reply, 'channels');
    const oauth: OAuthButton[] = OAUTH_PLUGINS.map((p) => ({
      id: p.id,
      name: p.displayName,
      enabled: this.oauthApps.find(p.id) !== null,
    }));
    // The OAuth buttons' forms end on the networks' consent pages (a redirect the browser checks too).
    void reply.header('content-security-policy', consoleCsp(this.consentOrigins()));
    sendPage(
      reply,
      channelsPage(ctx, { channels: page.data, providers: this.forms, oauth, error: flash.error, ok: flash.ok }),
    );
  }

  @Post('connect')
  async connect(@Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const body = (req.body ?? {}) as Record<string, string | string[]>;
    const provider = typeof body.provider === 'string' ? body.provider : '';
    const form = this.forms.find((f) => f.id === provider);
    if (!form) throw AppError.validation('provider: unknown network');
    const credentials: Record<string, unknown> = {};
    for (const f of form.fields) {
      const raw = body[`${CREDENTIAL_PREFIX}${f.name}`];
      const value = credentialValue(f, (Array.isArray(raw) ? raw[0] : raw)?.trim() ?? '');
      if (value !== undefined) credentials[f.name] = value;
    }
    try {
      const { channel, created } = await this.channels.connect(
        this.pages.actor(req).workspaceId,
        form.id as ProviderId,
        credentials,
      );
      this.pages.setFlash(req, reply, {
        ok: `${created ? 'Connected' : 'Reconnected'} ${form.name} account ${channel.handle}.`,
      });
    } catch (err) {
      if (!(err instanceof AppError) || err.code !== 'VALIDATION_ERROR') throw err;
      this.pages.setFlash(req, reply, { error: `Could not connect ${form.name}: ${err.message}` });
    }
    redirect(reply, '/console/channels');
  }

  /** Starts the authorization and sends the browser to the network's consent page. */
  @Post('oauth/:provider')
  async startOAuth(
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
    @Param('provider') provider: string,
  ): Promise<void> {
    const plugin = OAUTH_PLUGINS.find((p) => p.id === provider);
    if (!plugin) throw AppError.notFound('Network');
    try {
      const start = await this.oauth.start(
        this.pages.actor(req).workspaceId,
        plugin.id,
        `${this.cfg.url}/channels/oauth/return`,
        { trustedRedirect: true }, // built here from CONSOLE_URL, not given by a client
      );
      redirect(reply, start.authorizationUrl);
    } catch (err) {
      if (!(err instanceof AppError) || err.code !== 'VALIDATION_ERROR') throw err;
      this.pages.setFlash(req, reply, { error: `Could not connect ${plugin.displayName}: ${err.message}` });
      redirect(reply, '/console/channels');
    }
  }

  /** Where the OAuth callback sends the browser back: a channel, accounts to choose from, or an error. */
  @Get('oauth/return')
  async oauthReturn(@Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const query = (req.query ?? {}) as Record<string, unknown>;
    const param = (name: string) => (typeof query[name] === 'string' ? query[name] : undefined);
    const connectionId = param('connectionId');
    if (connectionId) {
      redirect(reply, `/console/channels/connections/${encodeURIComponent(connectionId)}`);
      return;
    }
    const channelId = param('channelId');
    if (channelId) {
      const channel = await this.channels.get(this.pages.actor(req).workspaceId, channelId).catch(() => null);
      this.pages.setFlash(req, reply, {
        ok: channel ? `Connected ${displayName(channel.provider)} account ${channel.handle}.` : 'Account connected.',
      });
    } else {
      this.pages.setFlash(req, reply, {
        error: `The connection did not complete (${param('error') ?? 'unknown error'}). Try again.`,
      });
    }
    redirect(reply, '/console/channels');
  }

  @Get('connections/:id')
  async connection(@Req() req: FastifyRequest, @Res() reply: FastifyReply, @Param('id') id: string): Promise<void> {
    const flash = this.pages.takeFlash(req, reply);
    let pending;
    try {
      pending = await this.oauth.getConnection(this.pages.actor(req).workspaceId, id);
    } catch (err) {
      if (!(err instanceof AppError) || (err.code !== 'NOT_FOUND' && err.code !== 'CONFLICT')) throw err;
      this.pages.setFlash(req, reply, { error: `This connection cannot be used: ${err.message}` });
      redirect(reply, '/console/channels');
      return;
    }
    const ctx = await this.pages.context(req, reply, 'channels');
    sendPage(
      reply,
      chooseTargetsPage(ctx, {
        connectionId: pending.id,
        network: OAUTH_PLUGINS.find((p) => p.id === pending.provider)?.displayName ?? pending.provider,
        targets: pending.targets,
        expiresAt: pending.expiresAt,
        error: flash.error,
      }),
    );
  }

  @Post('connections/:id')
  async choose(@Req() req: FastifyRequest, @Res() reply: FastifyReply, @Param('id') id: string): Promise<void> {
    const targetIds = fields(req, 'targetIds');
    if (targetIds.length === 0) {
      this.pages.setFlash(req, reply, { error: 'Choose at least one account.' });
      redirect(reply, `/console/channels/connections/${encodeURIComponent(id)}`);
      return;
    }
    try {
      const saved = await this.oauth.chooseTargets(this.pages.actor(req).workspaceId, id, targetIds);
      this.pages.setFlash(req, reply, {
        ok: `Connected ${saved.map((s) => `${displayName(s.channel.provider)} account ${s.channel.handle}`).join(', ')}.`,
      });
    } catch (err) {
      if (!(err instanceof AppError) || !['VALIDATION_ERROR', 'NOT_FOUND', 'CONFLICT'].includes(err.code)) throw err;
      this.pages.setFlash(req, reply, { error: `Could not connect the accounts: ${err.message}` });
    }
    redirect(reply, '/console/channels');
  }

  @Post(':id/disconnect')
  async disconnect(@Req() req: FastifyRequest, @Res() reply: FastifyReply, @Param('id') id: string): Promise<void> {
    await this.channels.disconnect(this.pages.actor(req).workspaceId, id);
    this.pages.setFlash(req, reply, { ok: 'Channel disconnected.' });
    redirect(reply, '/console/channels');
  }

  /** Origins of the enabled OAuth networks' consent pages. */
  private consentOrigins(): string[] {
    return OAUTH_PLUGINS.flatMap((p) => {
      const app = this.oauthApps.find(p.id);
      return app ? [new URL(app.spec.authorizeUrl(app.hosts)).origin] : [];
    });
  }
}
