import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ChannelsModule } from '../channels/channels.module';
import { PostingSchedule } from './posting-schedule.entity';
import { PostingSchedulesController } from './posting-schedules.controller';
import { PostingSchedulesService } from './posting-schedules.service';
import { PostingSchedulesStore } from './posting-schedules.store';

/**
 * Posting schedules (queues) per channel: `/channels/{id}/schedule` and `/channels/{id}/slots`. Owns
 * `posting_schedules`. The taken instants come from posts through SLOT_OCCUPANCY, bound at the composition root.
 */
@Module({
  imports: [TypeOrmModule.forFeature([PostingSchedule]), ChannelsModule],
  controllers: [PostingSchedulesController],
  providers: [PostingSchedulesService, PostingSchedulesStore],
  exports: [PostingSchedulesService],
})
export class PostingSchedulesModule {}
