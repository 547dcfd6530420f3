import { Controller, Get, Param, Post, Req, Res, UseFilters, UseGuards } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ChannelsService } from '../channels/channels.service';
import { Public } from '../common/decorators/public.decorator';
import { AppError } from '../common/errors';
import { PostingSchedulesService } from '../posting-schedules/posting-schedules.service';
import { ListPostsQueryDto } from '../posts/dto/list-posts.query.dto';
import type { PostDto } from '../posts/dto/post.dto';
import { POST_STATUSES } from '../posts/post.entity';
import { PostsService } from '../posts/posts.service';
import { ProvidersService } from '../providers/providers.service';
import { ConsoleExceptionFilter } from './console-exception.filter';
import { ConsoleGuard } from './console.guard';
import { field, redirect, sendPage } from './console-http';
import { ConsolePagesService, validateForm } from './console-pages.service';
import { CalendarDay, CalendarFilters, CalendarSlot, calendarPage, calendarTime } from './views/calendar.page';

const DAY = 86_400_000;
const RANGE_POSTS = 100;

const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/**
 * The calendar: posts across channels by day (UTC), with the channels' posting slots; a scheduled post
 * moves through PostsService.reschedule (the same checks as PUT /api/posts/{id}).
 */
@ApiExcludeController()
@Public()
@Controller('console/calendar')
@UseGuards(ConsoleGuard)
@UseFilters(ConsoleExceptionFilter)
export class ConsoleCalendarController {
  constructor(
    private readonly pages: ConsolePagesService,
    private readonly posts: PostsService,
    private readonly channels: ChannelsService,
    private readonly providers: ProvidersService,
    private readonly schedules: PostingSchedulesService,
  ) {}

  @Get()
  async show(@Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const workspaceId = this.pages.actor(req).workspaceId;
    const flash = this.pages.takeFlash(req, reply);
    const q = (req.query ?? {}) as Record<string, unknown>;
    const view = q.view === 'week' ? 'week' : 'month';
    const asked =
      typeof q.date === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(q.date) ? Date.parse(`${q.date}T00:00:00Z`) : NaN;
    const anchor = Number.isNaN(asked) ? Math.floor(Date.now() / DAY) * DAY : asked;
    const mondayOf = (ms: number) => ms - ((new Date(ms).getUTCDay() + 6) % 7) * DAY;
    let from: number;
    let until: number;
    let inFrom: number;
    let inUntil: number;
    let previous: number;
    let next: number;
    let title: string;
    if (view === 'week') {
      from = inFrom = mondayOf(anchor);
      until = inUntil = from + 7 * DAY;
      previous = from - 7 * DAY;
      next = from + 7 * DAY;
      title = `week of ${isoDay(from)}`;
    } else {
      const d = new Date(anchor);
      inFrom = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
      inUntil = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
      from = mondayOf(inFrom);
      until = mondayOf(inUntil - DAY) + 7 * DAY;
      previous = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() - 1, 1);
      next = inUntil;
      title = new Date(inFrom).toISOString().slice(0, 7);
    }
    const channelId = typeof q.channelId === 'string' && q.channelId ? q.channelId : undefined;
    const status = typeof q.status === 'string' && q.status ? q.status : undefined;
    const filters: CalendarFilters = { view, date: isoDay(anchor), channelId, status };
    const channels = (await this.channels.list(workspaceId, { limit: 100 })).data;
    let error: string | undefined;
    let posts: PostDto[] = [];
    let more = false;
    try {
      const query = validateForm(ListPostsQueryDto, {
        channelId,
        status,
        from: new Date(from).toISOString(),
        to: new Date(until).toISOString(),
        sort: 'scheduledAt',
      });
      query.limit = RANGE_POSTS;
      const page = await this.posts.list(workspaceId, query);
      posts = page.data;
      more = page.nextCursor !== null;
    } catch (err) {
      if (!(err instanceof AppError) || err.code !== 'VALIDATION_ERROR') throw err;
      error = `Filters ignored: ${err.message}`;
    }
    const shown = channels.filter((c) => c.status === 'active' && (!channelId || c.id === channelId));
    const slots: CalendarSlot[] = [];
    for (let monday = from; monday < until; monday += 7 * DAY) {
      for (const c of shown) {
        const week = await this.schedules.week(workspaceId, c.id, isoDay(monday));
        for (const d of week.days) for (const s of d.slots) slots.push({ at: s.at, channelId: c.id });
      }
    }
    const days: CalendarDay[] = [];
    for (let t = from; t < until; t += DAY) {
      const date = isoDay(t);
      days.push({
        date,
        inRange: t >= inFrom && t < inUntil,
        posts: posts.filter((p) => calendarTime(p).slice(0, 10) === date),
        slots: slots.filter((s) => isoDay(s.at.getTime()) === date).sort((a, b) => a.at.getTime() - b.at.getTime()),
      });
    }
    const ctx = await this.pages.context(req, reply, 'calendar');
    sendPage(
      reply,
      calendarPage(ctx, {
        filters,
        days,
        channels,
        networks: new Map(this.providers.list().map((n) => [n.id, n.name])),
        statuses: POST_STATUSES,
        previous: isoDay(previous),
        next: isoDay(next),
        title,
        ok: flash.ok,
        error: error ?? flash.error,
        more,
      }),
      error ? 400 : 200,
    );
  }

  /** Moves a scheduled post to a slot (`at`, an instant) or a time of one's own (`custom`, UTC). */
  @Post(':id/move')
  async move(@Req() req: FastifyRequest, @Res() reply: FastifyReply, @Param('id') id: string): Promise<void> {
    const back = field(req, 'back');
    const to = back.startsWith('/console/calendar') && !/[\\\r\n]/.test(back) ? back : '/console/calendar';
    const custom = field(req, 'custom');
    const at = field(req, 'at') || (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/.test(custom) ? `${custom}:00Z` : '');
    try {
      if (!at || Number.isNaN(Date.parse(at))) throw AppError.validation('Choose a slot or a time to move the post to');
      const post = await this.posts.reschedule(this.pages.scopedActor(req), id, new Date(at).toISOString());
      this.pages.setFlash(req, reply, {
        ok: `Moved: the post is ${post.status.replace('_', ' ')} for ${post.scheduledAt}.`,
      });
    } catch (err) {
      if (!(err instanceof AppError) || !['VALIDATION_ERROR', 'CONFLICT', 'FORBIDDEN'].includes(err.code)) throw err;
      this.pages.setFlash(req, reply, { error: err.message });
    }
    redirect(reply, to);
  }
}
