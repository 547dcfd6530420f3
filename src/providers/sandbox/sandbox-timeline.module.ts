import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { SandboxPost } from './sandbox-post.entity';
import { SandboxTimelineStore } from './sandbox-timeline.store';

/** Owns `sandbox_posts`, the sandbox network's timelines; used by its adapter and its controller. */
@Module({
  imports: [TypeOrmModule.forFeature([SandboxPost])],
  providers: [SandboxTimelineStore],
  exports: [SandboxTimelineStore],
})
export class SandboxTimelineModule {}
