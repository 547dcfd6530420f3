import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { SandboxTimeline } from '../providers/sandbox/sandbox-timeline.port';
import { SandboxPost } from './sandbox-post.entity';
import { SandboxTimelineStore } from './sandbox-timeline.store';

/**
 * Owns `sandbox_posts`, the sandbox network's timelines, and binds them to the sandbox provider's
 * `SandboxTimeline` port. Global, because the provider registry (which imports no feature) injects
 * that port: listing this module once in the application is the binding.
 */
@Global()
@Module({
  imports: [TypeOrmModule.forFeature([SandboxPost])],
  providers: [SandboxTimelineStore, { provide: SandboxTimeline, useExisting: SandboxTimelineStore }],
  exports: [SandboxTimelineStore, SandboxTimeline],
})
export class SandboxTimelineModule {}
