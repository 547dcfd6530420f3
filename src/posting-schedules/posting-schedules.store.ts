import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, In, Repository } from 'typeorm';
import { PostingSchedule } from './posting-schedule.entity';
import type { WeeklySlot } from './slot-calendar';

/** The `posting_schedules` table (owned by posting-schedules); every read is scoped to a workspace. */
@Injectable()
export class PostingSchedulesStore {
  constructor(@InjectRepository(PostingSchedule) private readonly schedules: Repository<PostingSchedule>) {}

  find(workspaceId: string, channelId: string): Promise<PostingSchedule | null> {
    return this.schedules.findOneBy({ workspaceId, channelId });
  }

  /** `em`: the caller's transaction, to read on its connection (it may hold the pool's last one). */
  findMany(workspaceId: string, channelIds: string[], em?: EntityManager): Promise<PostingSchedule[]> {
    if (channelIds.length === 0) return Promise.resolve([]);
    const repo = em ? em.getRepository(PostingSchedule) : this.schedules;
    return repo.findBy({ workspaceId, channelId: In(channelIds) });
  }

  /** Creates or replaces the channel's schedule (one statement: concurrent PUTs end with one of them). */
  async save(workspaceId: string, channelId: string, timezone: string, slots: WeeklySlot[]): Promise<PostingSchedule> {
    await this.schedules
      .createQueryBuilder()
      .insert()
      .values({ channelId, workspaceId, timezone, slots })
      .orUpdate(['timezone', 'slots', 'updated_at'], ['channel_id'])
      .execute();
    return this.schedules.findOneByOrFail({ workspaceId, channelId });
  }
}
