import { Module } from '@nestjs/common';
import { PostQueueSlotsStore } from './post-queue-slots.store';

/**
 * The posts side of posting schedules' SLOT_OCCUPANCY port (the instants queued posts hold), as a
 * module of its own: the composition root binds it to the port without loading PostsModule, which
 * imports PostingSchedulesModule.
 */
@Module({
  providers: [PostQueueSlotsStore],
  exports: [PostQueueSlotsStore],
})
export class PostSlotOccupancyModule {}
