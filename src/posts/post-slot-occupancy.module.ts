import { Module } from '@nestjs/common';
import { SLOT_OCCUPANCY } from '../posting-schedules/slot-occupancy.port';
import { PostQueueSlotsStore } from './post-queue-slots.store';

/**
 * The posts side of posting schedules' SLOT_OCCUPANCY port, as a module of its own so
 * PostingSchedulesModule can import it without importing PostsModule (which imports it).
 */
@Module({
  providers: [PostQueueSlotsStore, { provide: SLOT_OCCUPANCY, useExisting: PostQueueSlotsStore }],
  exports: [SLOT_OCCUPANCY, PostQueueSlotsStore],
})
export class PostSlotOccupancyModule {}
