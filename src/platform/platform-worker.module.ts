import { Module } from '@nestjs/common';
import { PlatformModule } from './platform.module';
import { WorkspaceErasureProcessor } from './workspace-erasure.processor';

/** The erasure jobs and their reconciler: loaded only where the process runs workers. */
@Module({
  imports: [PlatformModule],
  providers: [WorkspaceErasureProcessor],
})
export class PlatformWorkerModule {}
