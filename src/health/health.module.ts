import { Module } from '@nestjs/common';
import { HealthController } from './health.controller';
import { HealthService } from './health.service';
import { HttpDrainService } from './http-drain.service';

/** Health and readiness probes; media storage is pinged through STORAGE_PING (bound in app.module.ts). */
@Module({
  controllers: [HealthController],
  providers: [HealthService, HttpDrainService],
  exports: [HealthService],
})
export class HealthModule {}
