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
import type { ProviderDto } from '../providers/dto/provider.dto';
import type { ProviderId } from '../providers/provider.list';
import { ProviderRegistry } from '../providers/provider.registry';
import { ProvidersService } from '../providers/providers.service';
import { SandboxPostDto } from '../sandbox/dto/sandbox-post.dto';
import { SandboxService } from '../sandbox/sandbox.service';
import { ConsoleExceptionFilter } from './console-exception.filter';
import { ConsoleGuard } from './console.guard';
import { consoleCsp, fields, redirect, sendPage } from './console-http';
import { ConsolePagesService } from './console-pages.service';
import { ConsolePreviewsService } from './console-previews.service';
import { CredentialField, credentialFields, credentialValue } from './credential-fields';
import {
  channelsPage,
  chooseTargetsPage,
  connectHref,
  connectPage,
  disconnectChannelPage,
  sandboxTimelinePage,
} from './views/channels.page';

const CREDENTIAL_PREFIX = 'credentials.';
const TIMELINE_LIMIT = 100;

/**
 * Channels: list; a tile per network (from the provider registry, as `GET /api/providers` lists
 * them) leading to its connect page (a form generated from the credentials schema, or a button that
 * runs the network's authorization and, when it reaches several accounts, a page to choose them);
 * disconnect behind a confirmation; a sandbox channel's timeline.
 */
@ApiExcludeController()
@Public()
@Controller('console/channels')
@UseGuards(ConsoleGuard)
@UseFilters(ConsoleExceptionFilter)
export class ConsoleChannelsController {
  /** Connect-form fields of each credentials-based network, read once from its schema. */
  private readonly forms = new Map<string, CredentialField[]>();

  constructor(
    private readonly pages: ConsolePagesService,
    private readonly channels: ChannelsService,
    private readonly providers: ProvidersService,
    private readonly registry: ProviderRegistry,
    private readonly sandbox: SandboxService,
    private readonly oauth: OAuthService,
    private readonly oauthApps: OAuthAppsService,
    @Inject(consoleConfig.KEY) private readonly cfg: ConfigType<typeof consoleConfig>,
    private readonly previews: ConsolePreviewsService,
  ) {}

  @Get()
  async list(@Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const flash = this.pages.takeFlash(req, reply);
    const page = await this.channels.list(this.pages.actor(req).workspaceId, { limit: 100 });
    const ctx = await this.pages.context(req, reply, 'channels');
    sendPage(
      reply,
      channelsPage(ctx, { channels: page.data, networks: this.providers.list(), error: flash.error, ok: flash.ok }),
    );
  }

  /** One network's connect page: the tile's target. */
  @Get('connect/:provider')
  async connectForm(
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
    @Param('provider') provider: string,
  ): Promise<void> {
    const network = this.network(provider);
    const flash = this.pages.takeFlash(req, reply);
    const ctx = await this.pages.context(req, reply, 'channels');
    const app = network.connect === 'oauth' ? this.oauthApps.find(network.id) : null;
    // The button's form ends on the network's consent page (a redirect the browser checks too).
    if (app)
      void reply.header('content-security-policy', consoleCsp([new URL(app.spec.authorizeUrl(app.hosts)).origin]));
    sendPage(
      reply,
      connectPage(ctx, {
        network,
        fields: network.connect === 'credentials' ? this.fields(network.id) : null,
        appSettings: this.providers.appSettings(network.id),
        error: flash.error,
      }),
    );
  }

  @Post('connect')
  async connect(@Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const body = (req.body ?? {}) as Record<string, string | string[]>;
    const provider = typeof body.provider === 'string' ? body.provider : '';
    const network = this.providers.list().find((n) => n.id === provider && n.connect === 'credentials');
    if (!network) throw AppError.validation('provider: unknown network');
    const credentials: Record<string, unknown> = {};
    for (const f of this.fields(network.id)) {
      const raw = body[`${CREDENTIAL_PREFIX}${f.name}`];
      const value = credentialValue(f, (Array.isArray(raw) ? raw[0] : raw)?.trim() ?? '');
      if (value !== undefined) credentials[f.name] = value;
    }
    try {
      const { channel, created } = await this.channels.connect(
        this.pages.actor(req).workspaceId,
        network.id as ProviderId,
        credentials,
      );
      this.pages.setFlash(req, reply, {
        ok: `${created ? 'Connected' : 'Reconnected'} ${network.name} account ${channel.handle}.`,
      });
    } catch (err) {
      if (!(err instanceof AppError) || err.code !== 'VALIDATION_ERROR') throw err;
      this.pages.setFlash(req, reply, { error: `Could not connect ${network.name}: ${err.message}` });
      return redirect(reply, connectHref(network.id));
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
    const network = this.network(provider);
    if (network.connect !== 'oauth') throw AppError.notFound('Network');
    try {
      const start = await this.oauth.start(
        this.pages.actor(req).workspaceId,
        network.id,
        `${this.cfg.url}/channels/oauth/return`,
        { trustedRedirect: true }, // built here from CONSOLE_URL, not given by a client
      );
      redirect(reply, start.authorizationUrl);
    } catch (err) {
      if (!(err instanceof AppError) || err.code !== 'VALIDATION_ERROR') throw err;
      this.pages.setFlash(req, reply, { error: `Could not connect ${network.name}: ${err.message}` });
      redirect(reply, connectHref(network.id));
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
        ok: channel
          ? `Connected ${this.displayName(channel.provider)} account ${channel.handle}.`
          : 'Account connected.',
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
        network: this.displayName(pending.provider),
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
        ok: `Connected ${saved.map((s) => `${this.displayName(s.channel.provider)} account ${s.channel.handle}`).join(', ')}.`,
      });
    } catch (err) {
      if (!(err instanceof AppError) || !['VALIDATION_ERROR', 'NOT_FOUND', 'CONFLICT'].includes(err.code)) throw err;
      this.pages.setFlash(req, reply, { error: `Could not connect the accounts: ${err.message}` });
    }
    redirect(reply, '/console/channels');
  }

  @Get(':id/disconnect')
  async confirmDisconnect(
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
    @Param('id') id: string,
  ): Promise<void> {
    const channel = await this.channels.get(this.pages.actor(req).workspaceId, id);
    const ctx = await this.pages.context(req, reply, 'channels');
    sendPage(reply, disconnectChannelPage(ctx, channel, this.displayName(channel.provider)));
  }

  @Post(':id/disconnect')
  async disconnect(@Req() req: FastifyRequest, @Res() reply: FastifyReply, @Param('id') id: string): Promise<void> {
    await this.channels.disconnect(this.pages.actor(req).workspaceId, id);
    this.pages.setFlash(req, reply, { ok: 'Channel disconnected.' });
    redirect(reply, '/console/channels');
  }

  /** A sandbox channel's timeline: where the Posts page's "view" links of sandbox targets lead. */
  @Get(':id/timeline')
  async timeline(@Req() req: FastifyRequest, @Res() reply: FastifyReply, @Param('id') id: string): Promise<void> {
    const workspaceId = this.pages.actor(req).workspaceId;
    const channel = await this.channels.get(workspaceId, id);
    const page = await this.sandbox.timeline(workspaceId, channel.id, { limit: TIMELINE_LIMIT });
    const ctx = await this.pages.context(req, reply, 'channels');
    const posts = page.data.map((p) => SandboxPostDto.from(p));
    sendPage(
      reply,
      sandboxTimelinePage(ctx, {
        channel,
        posts,
        more: page.nextCursor !== null,
        media: await this.previews.forIds(
          workspaceId,
          posts.flatMap((p) => p.media.map((m) => m.id)),
        ),
      }),
    );
  }

  /** A registered network as `GET /api/providers` lists it; 404 for any other name. */
  private network(id: string): ProviderDto {
    const network = this.providers.list().find((n) => n.id === id);
    if (!network) throw AppError.notFound('Network');
    return network;
  }

  private fields(id: string): CredentialField[] {
    let fields = this.forms.get(id);
    if (!fields) {
      fields = credentialFields(this.registry.plugin(id).credentials);
      this.forms.set(id, fields);
    }
    return fields;
  }

  /** The network's name for people (`mastodon` -> `Mastodon`). */
  private displayName(id: string): string {
    return this.registry.has(id) ? this.registry.plugin(id).displayName : id;
  }
}
