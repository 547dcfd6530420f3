import { Controller, Get, Param, Post, Req, Res, UseFilters, UseGuards } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ChannelsService } from '../channels/channels.service';
import { Public } from '../common/decorators/public.decorator';
import { AppError } from '../common/errors';
import { PROVIDER_PLUGINS, ProviderId } from '../providers/provider.list';
import { ConsoleExceptionFilter } from './console-exception.filter';
import { ConsoleGuard } from './console.guard';
import { redirect, sendPage } from './console-http';
import { ConsolePagesService } from './console-pages.service';
import { credentialFields } from './credential-fields';
import { ProviderForm, channelsPage } from './views/channels.page';

const CREDENTIAL_PREFIX = 'credentials.';

/** Channels: list, connect (forms generated from each provider's credentials schema), disconnect. */
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
  ) {
    // Every credentials-based network registered in the provider list gets a form; OAuth ones will get a button.
    this.forms = PROVIDER_PLUGINS.filter((p) => p.connectKind === 'credentials').map((p) => ({
      id: p.id,
      fields: credentialFields(p.credentials),
    }));
  }

  @Get()
  async list(@Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const flash = this.pages.takeFlash(req, reply);
    const page = await this.channels.list(this.pages.actor(req).workspaceId, { limit: 100 });
    const ctx = await this.pages.context(req, reply, 'channels');
    sendPage(
      reply,
      channelsPage(ctx, { channels: page.data, providers: this.forms, error: flash.error, ok: flash.ok }),
    );
  }

  @Post('connect')
  async connect(@Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const body = (req.body ?? {}) as Record<string, string | string[]>;
    const provider = typeof body.provider === 'string' ? body.provider : '';
    const form = this.forms.find((f) => f.id === provider);
    if (!form) throw AppError.validation('provider: unknown network');
    const credentials: Record<string, string> = {};
    for (const f of form.fields) {
      const raw = body[`${CREDENTIAL_PREFIX}${f.name}`];
      const value = (Array.isArray(raw) ? raw[0] : raw)?.trim();
      if (value) credentials[f.name] = value;
    }
    try {
      const { channel, created } = await this.channels.connect(
        this.pages.actor(req).workspaceId,
        form.id as ProviderId,
        credentials,
      );
      this.pages.setFlash(req, reply, {
        ok: `${created ? 'Connected' : 'Reconnected'} ${channel.provider} account ${channel.handle}.`,
      });
    } catch (err) {
      if (!(err instanceof AppError) || err.code !== 'VALIDATION_ERROR') throw err;
      this.pages.setFlash(req, reply, { error: `Could not connect ${provider}: ${err.message}` });
    }
    redirect(reply, '/console/channels');
  }

  @Post(':id/disconnect')
  async disconnect(@Req() req: FastifyRequest, @Res() reply: FastifyReply, @Param('id') id: string): Promise<void> {
    await this.channels.disconnect(this.pages.actor(req).workspaceId, id);
    this.pages.setFlash(req, reply, { ok: 'Channel disconnected.' });
    redirect(reply, '/console/channels');
  }
}
