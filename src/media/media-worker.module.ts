import { Module } from '@nestjs/common';
import { MediaExpiryJob } from './media-expiry.job';
import { MediaImportProcessor } from './media-import.processor';
import { MediaImportSweepJob } from './media-import-sweep.job';
import { MediaModule } from './media.module';
import { VideoConversionProcessor } from './video-conversion.processor';

/** Media lifecycle jobs, background downloads and video conversions; loaded only where the role runs workers. */
@Module({
  imports: [MediaModule],
  providers: [MediaExpiryJob, MediaImportProcessor, MediaImportSweepJob, VideoConversionProcessor],
})
export class MediaWorkerModule {}
