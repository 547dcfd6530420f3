import { BullModule } from '@nestjs/bull';
import { Module } from '@nestjs/common';
import { MEDIA_QUEUE, MediaExpiryProcessor } from './media-expiry.processor';
import { MediaModule } from './media.module';

/** Media lifecycle jobs; loaded only where the role runs workers. */
@Module({
  imports: [MediaModule, BullModule.registerQueue({ name: MEDIA_QUEUE })],
  providers: [MediaExpiryProcessor],
})
export class MediaWorkerModule {}
