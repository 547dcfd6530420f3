import { Module } from '@nestjs/common';
import { ChannelsModule } from '../channels/channels.module';
import { SandboxTimelineModule } from './sandbox-timeline.module';
import { SandboxController } from './sandbox.controller';
import { SandboxService } from './sandbox.service';

/**
 * The sandbox network's own endpoint, `GET /api/channels/:id/sandbox/posts`, and its reader (the
 * console's timeline page), over the timelines of SandboxTimelineModule.
 */
@Module({
  imports: [ChannelsModule, SandboxTimelineModule],
  controllers: [SandboxController],
  providers: [SandboxService],
  exports: [SandboxService],
})
export class SandboxModule {}
