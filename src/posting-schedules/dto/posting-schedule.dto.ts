import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsIn, IsObject, IsString, Matches, MaxLength, ValidateNested } from 'class-validator';
import type { PostingSchedule } from '../posting-schedule.entity';
import { MAX_SLOTS, SLOT_TIME, WEEKDAYS, Weekday } from '../slot-calendar';

/** A weekly posting slot: a day of the week and a local time in the schedule's time zone. */
export class WeeklySlotDto {
  @ApiProperty({ enum: WEEKDAYS, example: 'mon' })
  @IsIn(WEEKDAYS)
  day!: Weekday;

  /** Local wall-clock time, `HH:MM` on a 24-hour clock (00:00 to 23:59). */
  @ApiProperty({ pattern: SLOT_TIME.source, example: '09:00' })
  @IsString()
  @Matches(SLOT_TIME, { message: 'must be a time HH:MM from 00:00 to 23:59' })
  time!: string;
}

/** Body of PUT /channels/{id}/schedule. */
export class PutPostingScheduleDto {
  /**
   * IANA time zone name (`Europe/Berlin`, `America/New_York`), checked against the server's ICU time zone
   * data. The slots are local times of this zone, across daylight-saving changes.
   */
  @ApiProperty({ example: 'Europe/Berlin', maxLength: 64 })
  @IsString()
  @MaxLength(64)
  timezone!: string;

  /**
   * The weekly slots (at most 336, every half hour of the week); stored sorted by day and time, each once.
   * `[]` keeps the time zone and takes the channel out of queueing.
   */
  @ApiProperty({ type: [WeeklySlotDto], maxItems: MAX_SLOTS })
  @IsArray()
  @ArrayMaxSize(MAX_SLOTS)
  @IsObject({ each: true, message: 'each slot must be an object {day, time}' })
  @ValidateNested({ each: true })
  @Type(() => WeeklySlotDto)
  slots!: WeeklySlotDto[];
}

export const PUT_POSTING_SCHEDULE_EXAMPLES = {
  weekdays: {
    summary: 'Weekdays at 09:00 and 17:00, Berlin time',
    value: {
      timezone: 'Europe/Berlin',
      slots: ['mon', 'tue', 'wed', 'thu', 'fri'].flatMap((day) => [
        { day, time: '09:00' },
        { day, time: '17:00' },
      ]),
    },
  },
};

/** A channel's posting schedule. */
export class PostingScheduleDto {
  @ApiProperty({ format: 'uuid' })
  channelId!: string;

  /** IANA time zone name; null while the channel has no schedule. */
  @ApiProperty({ type: String, nullable: true, example: 'Europe/Berlin' })
  timezone!: string | null;

  /** Sorted by day (Monday first) and time, each once; empty while the channel has no schedule. */
  @ApiProperty({ type: [WeeklySlotDto] })
  slots!: WeeklySlotDto[];

  /** When the schedule was last changed; null while the channel has none. */
  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  updatedAt!: string | null;

  static from(channelId: string, s: PostingSchedule | null): PostingScheduleDto {
    return {
      channelId,
      timezone: s?.timezone ?? null,
      slots: (s?.slots ?? []).map((x) => ({ day: x.day, time: x.time })),
      updatedAt: s?.updatedAt.toISOString() ?? null,
    };
  }
}
