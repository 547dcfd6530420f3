import { Controller, Get, Param, Post, Req, Res, UseFilters, UseGuards } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiKeysService } from '../auth/api-keys.service';
import { CreateApiKeyDto } from '../auth/dto/create-api-key.dto';
import { Public } from '../common/decorators/public.decorator';
import { AppError } from '../common/errors';
import { ConsoleExceptionFilter } from './console-exception.filter';
import { ConsoleGuard } from './console.guard';
import { field, fields, redirect, sendPage } from './console-http';
import { consoleRoleScopes } from '../auth/scopes.format';
import { ConsolePagesService, validateForm } from './console-pages.service';
import { keysPage, revokeKeyPage } from './views/keys.page';

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** Account settings -> API keys: the same ApiKeysService as `/api/api-keys`. */
@ApiExcludeController()
@Public()
@Controller('console/keys')
@UseGuards(ConsoleGuard)
@UseFilters(ConsoleExceptionFilter)
export class ConsoleKeysController {
  constructor(
    private readonly pages: ConsolePagesService,
    private readonly keys: ApiKeysService,
  ) {}

  @Get()
  async list(@Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const actor = this.pages.actor(req);
    const flash = this.pages.takeFlash(req, reply);
    const page = await this.keys.list(actor.workspaceId, 100);
    const ctx = await this.pages.context(req, reply, 'keys');
    sendPage(
      reply,
      keysPage(ctx, {
        keys: page.data,
        newKey: flash.apiKey ?? null,
        error: flash.error,
        defaultEnvironment: this.keys.defaultEnvironment,
        heldScopes: consoleRoleScopes(actor.role),
        more: page.nextCursor !== null,
      }),
    );
  }

  @Post()
  async create(@Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const actor = this.pages.actor(req);
    const expiresOn = field(req, 'expiresOn').trim();
    try {
      if (expiresOn && !DATE.test(expiresOn)) throw AppError.validation('Expires on: must be a date');
      // The form lists the scopes as checkboxes; a form without them (an older page) asks for what the user holds.
      const ticked = field(req, 'scopesShown') ? fields(req, 'scopes') : undefined;
      if (ticked && ticked.length === 0) throw AppError.validation('Scopes: tick at least one');
      const dto = validateForm(CreateApiKeyDto, {
        name: field(req, 'name').trim(),
        environment: field(req, 'environment') || undefined,
        expiresAt: expiresOn ? `${expiresOn}T23:59:59Z` : undefined,
        scopes: ticked,
      });
      const held = consoleRoleScopes(actor.role);
      const { apiKey, key } = await this.keys.create(actor.workspaceId, {
        name: dto.name,
        environment: dto.environment,
        expiresAt: dto.expiresAt ? new Date(dto.expiresAt) : null,
        scopes: dto.scopes ?? held,
        creatorScopes: held,
      });
      this.pages.setFlash(req, reply, { apiKey: { key, name: apiKey.name } });
    } catch (err) {
      if (!(err instanceof AppError) || !['VALIDATION_ERROR', 'FORBIDDEN'].includes(err.code)) throw err;
      this.pages.setFlash(req, reply, { error: `The key was not created. ${err.message}` });
    }
    redirect(reply, '/console/keys');
  }

  @Get(':id/revoke')
  async confirmRevoke(@Req() req: FastifyRequest, @Res() reply: FastifyReply, @Param('id') id: string): Promise<void> {
    const key = await this.keys.get(this.pages.actor(req).workspaceId, id);
    sendPage(reply, revokeKeyPage(await this.pages.context(req, reply, 'keys'), key));
  }

  @Post(':id/revoke')
  async revoke(@Req() req: FastifyRequest, @Res() reply: FastifyReply, @Param('id') id: string): Promise<void> {
    await this.keys.revoke(this.pages.actor(req).workspaceId, id);
    redirect(reply, '/console/keys');
  }
}
