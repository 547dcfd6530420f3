import { Module } from '@nestjs/common';
import { MediaExpiryJob } from './media-expiry.job';
import { MediaImportProcessor } from './media-import.processor';
import { MediaImportSweepJob } from './media-import-sweep.job';
import { MediaModule } from './media.module';

/** Media lifecycle jobs and background downloads; loaded only where the role runs workers. */
@Module({
  imports: [MediaModule],
  providers: [MediaExpiryJob, MediaImportProcessor, MediaImportSweepJob],
})
export class MediaWorkerModule {}
