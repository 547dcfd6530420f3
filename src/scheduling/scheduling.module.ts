import { Global, Module } from '@nestjs/common';
import { Scheduler } from './scheduler.service';

/** The periodic-job helper (Scheduler), shared by every feature; owns the `scheduled_jobs` table. */
@Global()
@Module({
  providers: [Scheduler],
  exports: [Scheduler],
})
export class SchedulingModule {}
