import { Controller, Get, Param, Post, Req, Res, UseFilters, UseGuards } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ChannelsService } from '../channels/channels.service';
import { Public } from '../common/decorators/public.decorator';
import { AppError } from '../common/errors';
import { PutPostingScheduleDto } from '../posting-schedules/dto/posting-schedule.dto';
import { PostingSchedulesService, ScheduleWeek } from '../posting-schedules/posting-schedules.service';
import { ListPostsQueryDto } from '../posts/dto/list-posts.query.dto';
import type { PostDto } from '../posts/dto/post.dto';
import { PostsService } from '../posts/posts.service';
import { ConsoleExceptionFilter } from './console-exception.filter';
import { ConsoleGuard } from './console.guard';
import { field, fields, redirect, sendPage } from './console-http';
import { ConsolePagesService, validateForm } from './console-pages.service';
import { WeekDayView, WeekEntry, scheduleHref, schedulePage } from './views/schedule.page';

/** Most posts a week view shows per channel. */
const WEEK_POSTS = 100;

/**
 * A channel's posting schedule in the console: the editor (time zone, slots kept or unticked, one
 * time added on several days) over the same service and DTO as `PUT /api/channels/{id}/schedule`,
 * and a week view of the slots and the scheduled and queued posts, in the schedule's zone.
 */
@ApiExcludeController()
@Public()
@Controller('console/channels')
@UseGuards(ConsoleGuard)
@UseFilters(ConsoleExceptionFilter)
export class ConsoleSchedulesController {
  constructor(
    private readonly pages: ConsolePagesService,
    private readonly channels: ChannelsService,
    private readonly schedules: PostingSchedulesService,
    private readonly posts: PostsService,
  ) {}

  @Get(':id/schedule')
  async show(@Req() req: FastifyRequest, @Res() reply: FastifyReply, @Param('id') id: string): Promise<void> {
    const workspaceId = this.pages.actor(req).workspaceId;
    const channel = await this.channels.get(workspaceId, id);
    const flash = this.pages.takeFlash(req, reply);
    const query = (req.query ?? {}) as Record<string, unknown>;
    const [schedule, week] = await Promise.all([
      this.schedules.get(workspaceId, channel.id),
      this.schedules.week(workspaceId, channel.id, typeof query.week === 'string' ? query.week : undefined),
    ]);
    const postsQuery = validateForm(ListPostsQueryDto, {
      channelId: channel.id,
      from: week.from.toISOString(),
      to: week.until.toISOString(),
      sort: 'scheduledAt',
    });
    postsQuery.limit = WEEK_POSTS;
    const posts = (await this.posts.list(workspaceId, postsQuery)).data.filter((p) => p.scheduledAt !== null);
    const ctx = await this.pages.context(req, reply, 'channels');
    sendPage(
      reply,
      schedulePage(ctx, {
        channel,
        schedule,
        week,
        days: this.days(week, posts),
        zones: Intl.supportedValuesOf('timeZone'),
        error: flash.error,
        ok: flash.ok,
      }),
    );
  }

  @Post(':id/schedule')
  async save(@Req() req: FastifyRequest, @Res() reply: FastifyReply, @Param('id') id: string): Promise<void> {
    const workspaceId = this.pages.actor(req).workspaceId;
    const channel = await this.channels.get(workspaceId, id);
    const kept = fields(req, 'keep').map((v) => {
      const [day, time] = v.split(' ');
      return { day, time };
    });
    const days = fields(req, 'addDays');
    // A time input answers HH:MM (or HH:MM:SS where seconds are allowed).
    const time = field(req, 'addTime')
      .trim()
      .replace(/^(\d{2}:\d{2}):00$/, '$1');
    try {
      if (time && days.length === 0) throw AppError.validation('Choose the days to add the time to.');
      if (days.length > 0 && !time) throw AppError.validation('Give the time to add on the chosen days.');
      const dto = validateForm(PutPostingScheduleDto, {
        timezone: field(req, 'timezone'),
        slots: [...kept, ...days.map((day) => ({ day, time }))],
      });
      const saved = await this.schedules.put(workspaceId, channel.id, dto);
      this.pages.setFlash(req, reply, {
        ok: `Schedule saved: ${saved.slots.length} slot${saved.slots.length === 1 ? '' : 's'} a week, ${saved.timezone} time.`,
      });
    } catch (err) {
      if (!(err instanceof AppError) || err.code !== 'VALIDATION_ERROR') throw err;
      this.pages.setFlash(req, reply, { error: `The schedule was not saved: ${err.message}` });
    }
    redirect(reply, scheduleHref(channel.id));
  }

  /** Each day's free slots and posts (at their local times), in time order. */
  private days(week: ScheduleWeek, posts: PostDto[]): WeekDayView[] {
    const byInstant = new Map<number, PostDto[]>();
    for (const p of posts) {
      const at = Date.parse(p.scheduledAt!);
      byInstant.set(at, [...(byInstant.get(at) ?? []), p]);
    }
    return week.days.map((d) => {
      const entries: WeekEntry[] = [];
      const slotInstants = new Set(d.slots.map((s) => s.at.getTime()));
      for (const s of d.slots) {
        const here = byInstant.get(s.at.getTime()) ?? [];
        if (here.length === 0) entries.push({ at: s.at, time: s.time, post: null, slot: true });
        for (const p of here) entries.push({ at: s.at, time: s.time, post: p, slot: true });
      }
      for (const [at, list] of byInstant) {
        if (slotInstants.has(at)) continue;
        const local = this.schedules.localTime(week.timezone, new Date(at));
        if (local.date !== d.date) continue;
        for (const p of list) entries.push({ at: new Date(at), time: local.time, post: p, slot: false });
      }
      entries.sort((a, b) => a.at.getTime() - b.at.getTime());
      return { date: d.date, weekday: d.weekday, entries };
    });
  }
}
