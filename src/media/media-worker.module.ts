import { Module } from '@nestjs/common';
import { MediaExpiryJob } from './media-expiry.job';
import { MediaModule } from './media.module';

/** Media lifecycle jobs; loaded only where the role runs workers. */
@Module({
  imports: [MediaModule],
  providers: [MediaExpiryJob],
})
export class MediaWorkerModule {}
