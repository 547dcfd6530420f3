import { Module } from '@nestjs/common';
import { HealthModule } from './health.module';
import { WorkerHeartbeatService } from './worker-heartbeat.service';

/** The worker's liveness signal: loaded only where the process runs workers. */
@Module({ imports: [HealthModule], providers: [WorkerHeartbeatService] })
export class HealthWorkerModule {}
