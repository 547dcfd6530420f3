import { Controller, Get, Param, Post, Req, Res, UseFilters, UseGuards } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Channel } from '../channels/channel.entity';
import { ChannelsService } from '../channels/channels.service';
import { Public } from '../common/decorators/public.decorator';
import { AppError } from '../common/errors';
import { CreatePostDto } from '../posts/dto/create-post.dto';
import type { PostDto } from '../posts/dto/post.dto';
import { PostsService } from '../posts/posts.service';
import { ProvidersService } from '../providers/providers.service';
import { ConsoleExceptionFilter } from './console-exception.filter';
import { ConsoleGuard } from './console.guard';
import { field, fields, redirect, sendPage } from './console-http';
import { ConsolePagesService, validateForm } from './console-pages.service';
import { ConsolePreviewsService } from './console-previews.service';
import { ComposerValues, FieldProblems, OptionField, composerPage, optionFieldName } from './views/composer.page';

/** A datetime-local value (`2027-01-02T10:30`), read as UTC; null when not one. */
function utcOf(local: string): string | null {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/.test(local)) return null;
  const date = new Date(`${local.length === 16 ? `${local}:00` : local}Z`);
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}

/** The scalar settings of a network's optionsSchema (JSON Schema), which the form can hold. */
function optionFieldsOf(schema: Record<string, unknown> | null): OptionField[] {
  const properties = (schema?.properties ?? {}) as Record<string, Record<string, unknown>>;
  const out: OptionField[] = [];
  for (const [name, p] of Object.entries(properties)) {
    const type = p.type;
    if (type !== 'string' && type !== 'integer' && type !== 'number' && type !== 'boolean') continue;
    out.push({
      name,
      type,
      ...(Array.isArray(p.enum) ? { enum: p.enum.map(String) } : {}),
      ...(typeof p.description === 'string' ? { description: p.description } : {}),
    });
  }
  return out;
}

/**
 * The composer: writes a post through the same PostsService (and its validation) as POST /api/posts,
 * as the signed-in user (their role's scopes; `createdBy` names them). Problems come back at their
 * fields; without script the form alone makes text posts. Counts per network: POST .../count (the
 * script, as one types) and every answer of the form.
 */
@ApiExcludeController()
@Public()
@Controller('console/posts')
@UseGuards(ConsoleGuard)
@UseFilters(ConsoleExceptionFilter)
export class ConsoleComposerController {
  constructor(
    private readonly pages: ConsolePagesService,
    private readonly posts: PostsService,
    private readonly channels: ChannelsService,
    private readonly providers: ProvidersService,
    private readonly previews: ConsolePreviewsService,
  ) {}

  @Get('new')
  async newPost(@Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const values: ComposerValues = {
      content: '',
      channelIds: [],
      mediaIds: [],
      firstComment: '',
      scheduledAt: '',
      options: {},
    };
    await this.render(req, reply, null, values, new Map());
  }

  @Post('new')
  async create(@Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    await this.submit(req, reply, null);
  }

  /** The counts of a text on the chosen channels, as their networks' validation counts (the script's). */
  @Post('count')
  async count(@Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const workspaceId = this.pages.actor(req).workspaceId;
    const body = (req.body ?? {}) as { content?: unknown; channelIds?: unknown };
    const content = typeof body.content === 'string' ? body.content.slice(0, 100_000) : '';
    const all = (await this.channels.list(workspaceId, { limit: 100 })).data.map((c) => c.id);
    const counts = await this.posts.characterCounts(workspaceId, content, all);
    void reply.header('content-type', 'application/json').send(JSON.stringify({ counts }));
  }

  @Get(':id/edit')
  async edit(@Req() req: FastifyRequest, @Res() reply: FastifyReply, @Param('id') id: string): Promise<void> {
    const post = await this.editableDraft(req, id);
    const values: ComposerValues = {
      content: post.content,
      channelIds: post.channelIds,
      mediaIds: post.mediaIds,
      firstComment: post.firstComment ?? '',
      scheduledAt: post.scheduledAt ? post.scheduledAt.slice(0, 16) : '',
      options: Object.fromEntries(
        post.targets
          .filter((t) => t.options)
          .map((t) => [
            t.channelId,
            Object.fromEntries(
              Object.entries(t.options!).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]),
            ),
          ]),
      ),
    };
    await this.render(req, reply, id, values, new Map());
  }

  @Post(':id/edit')
  async update(@Req() req: FastifyRequest, @Res() reply: FastifyReply, @Param('id') id: string): Promise<void> {
    await this.editableDraft(req, id);
    await this.submit(req, reply, id);
  }

  private async editableDraft(req: FastifyRequest, id: string): Promise<PostDto> {
    const post = await this.posts.get(this.pages.actor(req).workspaceId, id);
    if (post.status !== 'draft')
      throw AppError.conflict(`Only a draft can be edited here; this post is ${post.status}`);
    return post;
  }

  private async submit(req: FastifyRequest, reply: FastifyReply, editing: string | null): Promise<void> {
    const actor = this.pages.scopedActor(req);
    const channels = (await this.channels.list(actor.workspaceId, { limit: 100 })).data;
    const values = this.valuesOf(req, channels);
    const action = field(req, 'action') || 'draft';
    const problems: FieldProblems = new Map();
    const targets = Object.entries(values.options)
      .filter(([channelId]) => values.channelIds.includes(channelId))
      .map(([channelId, opts]) => ({ channelId, options: this.typedOptions(channels, channelId, opts) }))
      .filter((t) => Object.keys(t.options).length > 0);
    const plain: Record<string, unknown> = {
      content: values.content,
      channelIds: values.channelIds,
      ...(values.mediaIds.length ? { mediaIds: values.mediaIds } : {}),
      ...(values.firstComment ? { firstComment: values.firstComment } : {}),
      ...(targets.length ? { targets } : {}),
    };
    if (action === 'now') plain.publishNow = true;
    if (action === 'queue') plain.queue = true;
    if (action === 'schedule') {
      const at = utcOf(values.scheduledAt);
      if (!at) problems.set('schedule', ['Give the date and time to publish at (UTC)']);
      else plain.scheduledAt = at;
    }
    if (problems.size === 0) {
      try {
        const dto = validateForm(CreatePostDto, plain);
        const post = editing ? await this.posts.update(actor, editing, dto) : await this.posts.create(actor, dto);
        this.pages.setFlash(req, reply, { ok: `Saved: the post is ${post.status.replace('_', ' ')}.` });
        return redirect(reply, `/console/posts/${post.id}`);
      } catch (err) {
        if (!(err instanceof AppError) || !['VALIDATION_ERROR', 'CONFLICT', 'FORBIDDEN'].includes(err.code)) throw err;
        for (const d of err.details ?? [{ field: 'form', message: err.message }]) {
          const key = this.fieldKey(
            d.field,
            targets.map((t) => t.channelId),
          );
          problems.set(key, [...(problems.get(key) ?? []), d.message]);
        }
        if (!err.details?.length) problems.set('form', [err.message]);
      }
    }
    await this.render(req, reply, editing, values, problems, 400);
  }

  /** Which form field a problem of validation belongs to. */
  private fieldKey(name: string, targetChannels: string[]): string {
    if (name === 'content' || name.startsWith('thread')) return 'content';
    if (name === 'channelIds' || name.startsWith('channelIds[')) return 'channels';
    if (name.startsWith('mediaIds')) return 'media';
    if (name === 'scheduledAt' || name === 'queue' || name === 'publishNow') return 'schedule';
    if (name === 'firstComment') return 'firstComment';
    const option = /^targets\[(\d+)\]\.options\.(\w+)/.exec(name);
    if (option && targetChannels[Number(option[1])])
      return optionFieldName(targetChannels[Number(option[1])], option[2]);
    if (name.startsWith('targets')) return 'options';
    return 'form';
  }

  private valuesOf(req: FastifyRequest, channels: Channel[]): ComposerValues {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const options: Record<string, Record<string, string>> = {};
    for (const [name, value] of Object.entries(body)) {
      const m = /^opt:([0-9a-f-]{36}):(\w+)$/.exec(name);
      if (!m || typeof value !== 'string' || value === '') continue;
      if (!channels.some((c) => c.id === m[1])) continue;
      (options[m[1]] ??= {})[m[2]] = value;
    }
    return {
      content: field(req, 'content').replace(/\r\n/g, '\n'),
      channelIds: fields(req, 'channelIds'),
      mediaIds: fields(req, 'mediaIds'),
      firstComment: field(req, 'firstComment').replace(/\r\n/g, '\n'),
      scheduledAt: field(req, 'scheduledAt'),
      options,
    };
  }

  /** A channel's options as typed, in their schema's types (numbers, booleans). */
  private typedOptions(channels: Channel[], channelId: string, opts: Record<string, string>): Record<string, unknown> {
    const channel = channels.find((c) => c.id === channelId);
    const schema = channel
      ? (this.providers.list().find((p) => p.id === channel.provider)?.optionsSchema ?? null)
      : null;
    const fieldsOf = new Map(optionFieldsOf(schema).map((f) => [f.name, f]));
    const out: Record<string, unknown> = {};
    for (const [name, raw] of Object.entries(opts)) {
      const f = fieldsOf.get(name);
      if (!f) continue;
      out[name] =
        f.type === 'boolean' ? raw === 'true' : f.type === 'integer' || f.type === 'number' ? Number(raw) : raw;
    }
    return out;
  }

  private async render(
    req: FastifyRequest,
    reply: FastifyReply,
    editing: string | null,
    values: ComposerValues,
    problems: FieldProblems,
    status = 200,
  ): Promise<void> {
    const workspaceId = this.pages.actor(req).workspaceId;
    const channels = (await this.channels.list(workspaceId, { limit: 100 })).data.filter((c) => c.status === 'active');
    const networks = this.providers.list();
    const [counts, media] = await Promise.all([
      this.posts.characterCounts(
        workspaceId,
        values.content,
        channels.map((c) => c.id),
      ),
      this.previews.forIds(workspaceId, values.mediaIds),
    ]);
    const ctx = await this.pages.context(req, reply, 'posts');
    sendPage(
      reply,
      composerPage(ctx, {
        editing,
        values,
        channels,
        networks: new Map(networks.map((n) => [n.id, n.name])),
        optionFields: new Map(networks.map((n) => [n.id, optionFieldsOf(n.optionsSchema)])),
        counts,
        media,
        problems,
      }),
      status,
    );
  }
}
