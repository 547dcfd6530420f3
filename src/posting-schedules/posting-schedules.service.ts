import { Inject, Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { ChannelsService } from '../channels/channels.service';
import { AppError } from '../common/errors';
import { PostingScheduleDto, PutPostingScheduleDto } from './dto/posting-schedule.dto';
import { SLOT_OCCUPANCY, SlotOccupancy } from './slot-occupancy.port';
import { PostingSchedulesStore } from './posting-schedules.store';
import {
  ChannelSlots,
  WEEKDAYS,
  Weekday,
  commonFreeInstants,
  instantOf,
  isTimeZone,
  normalizeSlots,
  slotInstants,
  wallClock,
  zoneSpelling,
} from './slot-calendar';

const DAY = 86_400_000;
/** How far GET /channels/{id}/slots looks for free slots. */
const FREE_SLOTS_HORIZON = 366 * DAY;
/** The last instant the API takes or gives (dates are years 0001 to 9999). */
const LAST_INSTANT = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

export type { ChannelSlots };

/** The channels' schedules for queueing a post: each channel's, or which ones have none. */
export interface QueueSchedules {
  schedules: ChannelSlots[];
  /** Channels without a schedule, or with no slot in theirs. */
  unscheduled: string[];
}

/** One day of a channel's week in its own time zone, with its slots. */
export interface ScheduleDay {
  /** Local date `YYYY-MM-DD`. */
  date: string;
  weekday: Weekday;
  slots: Array<{ at: Date; time: string }>;
}

/** A local week (Monday to Sunday) of a channel's schedule, for the console. */
export interface ScheduleWeek {
  /** The schedule's zone, or UTC when the channel has none. */
  timezone: string;
  from: Date;
  until: Date;
  days: ScheduleDay[];
  /** Monday of the week before and after (`YYYY-MM-DD`). */
  previous: string;
  next: string;
}

/**
 * Posting schedules: a channel's weekly slots in an IANA time zone, their instants and which are free
 * (docs/adr/0032-posting-schedules.md). Posts asks for the schedules of a post's channels when it queues one.
 */
@Injectable()
export class PostingSchedulesService {
  constructor(
    private readonly store: PostingSchedulesStore,
    private readonly channels: ChannelsService,
    @Inject(SLOT_OCCUPANCY) private readonly occupancy: SlotOccupancy,
  ) {}

  /** GET /channels/{id}/schedule; a channel of another workspace is 404. */
  async get(workspaceId: string, channelId: string): Promise<PostingScheduleDto> {
    const channel = await this.channels.get(workspaceId, channelId);
    return PostingScheduleDto.from(channel.id, await this.store.find(workspaceId, channel.id));
  }

  /** PUT /channels/{id}/schedule: replaces the schedule. Posts already scheduled stay where they are. */
  async put(workspaceId: string, channelId: string, dto: PutPostingScheduleDto): Promise<PostingScheduleDto> {
    const channel = await this.channels.get(workspaceId, channelId);
    const timezone = dto.timezone.trim();
    if (!isTimeZone(timezone)) {
      throw AppError.invalid([
        {
          field: 'timezone',
          message: `must be an IANA time zone name this server knows, e.g. Europe/Berlin (${JSON.stringify(dto.timezone.slice(0, 64))} is not)`,
        },
      ]);
    }
    const saved = await this.store.save(workspaceId, channel.id, zoneSpelling(timezone), normalizeSlots(dto.slots));
    return PostingScheduleDto.from(channel.id, saved);
  }

  /**
   * GET /channels/{id}/slots: the next `limit` slot instants at or after `from` (never before now) that
   * no scheduled or queued post of the workspace occupies on the channel, within 366 days.
   */
  async freeSlots(workspaceId: string, channelId: string, q: { from?: string; limit: number }): Promise<Date[]> {
    const channel = await this.channels.get(workspaceId, channelId);
    const schedule = await this.store.find(workspaceId, channel.id);
    if (!schedule || schedule.slots.length === 0) return [];
    const from = Math.max(Date.now(), q.from ? Date.parse(q.from) : 0);
    const until = Math.min(from + FREE_SLOTS_HORIZON, LAST_INSTANT);
    const occupied = await this.occupancy.occupied(workspaceId, [channel.id], new Date(from), new Date(until));
    const out: Date[] = [];
    const mine = [{ channelId: channel.id, timezone: schedule.timezone, slots: schedule.slots }];
    for (const at of commonFreeInstants(mine, occupied, from, until)) {
      out.push(new Date(at));
      if (out.length >= q.limit) break;
    }
    return out;
  }

  /**
   * The schedules of the channels of a post to queue (all of the workspace: the caller checked them),
   * read in the caller's transaction `em` when given.
   */
  async forQueue(workspaceId: string, channelIds: string[], em?: EntityManager): Promise<QueueSchedules> {
    const found = await this.store.findMany(workspaceId, channelIds, em);
    const schedules: ChannelSlots[] = [];
    const unscheduled: string[] = [];
    for (const channelId of channelIds) {
      const s = found.find((x) => x.channelId === channelId);
      if (s && s.slots.length > 0) schedules.push({ channelId, timezone: s.timezone, slots: s.slots });
      else unscheduled.push(channelId);
    }
    return { schedules, unscheduled };
  }

  /**
   * The instants in [from, until) (epoch ms) that are slots of every schedule and free of `occupied` on
   * every channel, earliest first (lazily: stop when one is taken).
   */
  commonFreeInstants(
    schedules: ChannelSlots[],
    occupied: Map<string, Set<number>>,
    from: number,
    until: number,
  ): Iterable<number> {
    return commonFreeInstants(schedules, occupied, from, until);
  }

  /**
   * The local week (Monday to Sunday, in the schedule's zone, UTC without one) holding the local date
   * `date` (`YYYY-MM-DD`, default today), with the slot instants of each day.
   */
  async week(workspaceId: string, channelId: string, date?: string): Promise<ScheduleWeek> {
    const channel = await this.channels.get(workspaceId, channelId);
    const schedule = await this.store.find(workspaceId, channel.id);
    const timezone = schedule?.timezone ?? 'UTC';
    // A date of the years 1970 to 9998 (a week of 9999 would end in the year 10000); else this week.
    const asked = date && /^(19[7-9]\d|[2-9]\d{3})-\d{2}-\d{2}$/.test(date) ? Date.parse(`${date}T00:00:00Z`) : NaN;
    const anchor =
      Number.isNaN(asked) || asked >= Date.UTC(9999, 0, 1)
        ? Math.floor(wallClock(timezone, Date.now()) / DAY) * DAY
        : asked;
    const monday = anchor - ((new Date(anchor).getUTCDay() + 6) % 7) * DAY;
    const from = instantOf(timezone, monday);
    const until = instantOf(timezone, monday + 7 * DAY);
    const days: ScheduleDay[] = WEEKDAYS.map((weekday, i) => ({
      date: new Date(monday + i * DAY).toISOString().slice(0, 10),
      weekday,
      slots: [],
    }));
    for (const at of slotInstants(timezone, schedule?.slots ?? [], from, until)) {
      const local = this.localTime(timezone, new Date(at));
      days.find((d) => d.date === local.date)?.slots.push({ at: new Date(at), time: local.time });
    }
    const iso = (ms: number) => new Date(ms).toISOString().slice(0, 10);
    return {
      timezone,
      from: new Date(from),
      until: new Date(until),
      days,
      previous: iso(monday - 7 * DAY),
      next: iso(monday + 7 * DAY),
    };
  }

  /** The local date (`YYYY-MM-DD`) and time (`HH:MM`) of an instant in a zone. */
  localTime(timezone: string, at: Date): { date: string; time: string } {
    const iso = new Date(wallClock(timezone, at.getTime())).toISOString();
    return { date: iso.slice(0, 10), time: iso.slice(11, 16) };
  }
}
