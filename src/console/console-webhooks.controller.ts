import { Controller, Get, Param, Post, Req, Res, UseFilters, UseGuards } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Public } from '../common/decorators/public.decorator';
import { AppError } from '../common/errors';
import { isUuid } from '../common/validators';
import { EVENT_TYPES } from '../events/event-payloads';
import { WebhookInputDto } from '../webhooks/dto/webhook-input.dto';
import { Webhook } from '../webhooks/webhook.entity';
import { WebhooksService } from '../webhooks/webhooks.service';
import { ConsoleExceptionFilter } from './console-exception.filter';
import { ConsoleGuard } from './console.guard';
import { field, fields, redirect, sendPage } from './console-http';
import { ConsolePagesService, validateForm } from './console-pages.service';
import { deleteWebhookPage, rotateWebhookSecretPage, webhookDeliveriesPage, webhooksPage } from './views/webhooks.page';

function uuid(id: string, what: string): string {
  if (!isUuid(id)) throw AppError.notFound(what);
  return id;
}

/** Webhooks: list, create (secret shown once), enable/disable, rotate and delete (each confirmed first), test, delivery log. */
@ApiExcludeController()
@Public()
@Controller('console/webhooks')
@UseGuards(ConsoleGuard)
@UseFilters(ConsoleExceptionFilter)
export class ConsoleWebhooksController {
  constructor(
    private readonly pages: ConsolePagesService,
    private readonly webhooks: WebhooksService,
  ) {}

  @Get()
  async list(@Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const flash = this.pages.takeFlash(req, reply);
    const page = await this.webhooks.list(this.pages.actor(req).workspaceId, { limit: 100 });
    const ctx = await this.pages.context(req, reply, 'webhooks');
    sendPage(
      reply,
      webhooksPage(ctx, {
        webhooks: page.data,
        eventTypes: EVENT_TYPES,
        secret: flash.webhookSecret ?? null,
        error: flash.error,
        ok: flash.ok,
      }),
    );
  }

  @Post()
  async create(@Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    try {
      const dto = validateForm(WebhookInputDto, {
        url: field(req, 'url').trim(),
        events: fields(req, 'events'),
        description: field(req, 'description').trim() || undefined,
      });
      const { webhook, secret } = await this.webhooks.create(this.pages.actor(req).workspaceId, dto);
      this.pages.setFlash(req, reply, { webhookSecret: { secret, url: webhook.url } });
    } catch (err) {
      if (!(err instanceof AppError) || err.code !== 'VALIDATION_ERROR') throw err;
      this.pages.setFlash(req, reply, { error: `The webhook was not added. ${err.message}` });
    }
    redirect(reply, '/console/webhooks');
  }

  @Get(':id')
  async deliveries(@Req() req: FastifyRequest, @Res() reply: FastifyReply, @Param('id') id: string): Promise<void> {
    const workspaceId = this.pages.actor(req).workspaceId;
    const flash = this.pages.takeFlash(req, reply);
    const webhook = await this.webhooks.get(workspaceId, uuid(id, 'Webhook'));
    const attempts = await this.webhooks.listDeliveries(workspaceId, webhook.id, { limit: 100 });
    const ctx = await this.pages.context(req, reply, 'webhooks');
    sendPage(reply, webhookDeliveriesPage(ctx, { webhook, attempts: attempts.data, ok: flash.ok }));
  }

  @Post(':id/enable')
  enable(@Req() req: FastifyRequest, @Res() reply: FastifyReply, @Param('id') id: string): Promise<void> {
    return this.setEnabled(req, reply, id, true);
  }

  @Post(':id/disable')
  disable(@Req() req: FastifyRequest, @Res() reply: FastifyReply, @Param('id') id: string): Promise<void> {
    return this.setEnabled(req, reply, id, false);
  }

  @Get(':id/rotate')
  async confirmRotate(@Req() req: FastifyRequest, @Res() reply: FastifyReply, @Param('id') id: string): Promise<void> {
    const webhook = await this.webhooks.get(this.pages.actor(req).workspaceId, uuid(id, 'Webhook'));
    sendPage(reply, rotateWebhookSecretPage(await this.pages.context(req, reply, 'webhooks'), webhook));
  }

  @Post(':id/rotate')
  async rotate(@Req() req: FastifyRequest, @Res() reply: FastifyReply, @Param('id') id: string): Promise<void> {
    const { webhook, secret } = await this.webhooks.rotateSecret(
      this.pages.actor(req).workspaceId,
      uuid(id, 'Webhook'),
    );
    this.pages.setFlash(req, reply, { webhookSecret: { secret, url: webhook.url } });
    redirect(reply, '/console/webhooks');
  }

  @Get(':id/delete')
  async confirmDelete(@Req() req: FastifyRequest, @Res() reply: FastifyReply, @Param('id') id: string): Promise<void> {
    const webhook = await this.webhooks.get(this.pages.actor(req).workspaceId, uuid(id, 'Webhook'));
    sendPage(reply, deleteWebhookPage(await this.pages.context(req, reply, 'webhooks'), webhook));
  }

  @Post(':id/delete')
  async delete(@Req() req: FastifyRequest, @Res() reply: FastifyReply, @Param('id') id: string): Promise<void> {
    await this.webhooks.remove(this.pages.actor(req).workspaceId, uuid(id, 'Webhook'));
    this.pages.setFlash(req, reply, { ok: 'Webhook deleted.' });
    redirect(reply, '/console/webhooks');
  }

  @Post(':id/test')
  async test(@Req() req: FastifyRequest, @Res() reply: FastifyReply, @Param('id') id: string): Promise<void> {
    await this.webhooks.sendTest(this.pages.actor(req).workspaceId, uuid(id, 'Webhook'));
    this.pages.setFlash(req, reply, { ok: 'Test event queued; its delivery appears below within seconds.' });
    redirect(reply, `/console/webhooks/${id}`);
  }

  private async setEnabled(req: FastifyRequest, reply: FastifyReply, id: string, enabled: boolean): Promise<void> {
    const workspaceId = this.pages.actor(req).workspaceId;
    const current: Webhook = await this.webhooks.get(workspaceId, uuid(id, 'Webhook'));
    await this.webhooks.update(workspaceId, current.id, {
      url: current.url,
      events: current.events,
      description: current.description ?? undefined,
      enabled,
    });
    this.pages.setFlash(req, reply, { ok: `Webhook ${enabled ? 'enabled' : 'disabled'}.` });
    redirect(reply, '/console/webhooks');
  }
}
