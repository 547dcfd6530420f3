import { Global, Module } from '@nestjs/common';
import { PeriodicJobs } from './periodic-jobs.service';
import { ScheduledJobsStore } from './scheduled-jobs.store';

/**
 * The periodic-job runner (PeriodicJobs), shared by every feature; owns the `scheduled_jobs` table. Not to be
 * confused with when posts are published (posts' scheduledAt and the publish queue).
 */
@Global()
@Module({
  providers: [PeriodicJobs, ScheduledJobsStore],
  exports: [PeriodicJobs],
})
export class PeriodicJobsModule {}
